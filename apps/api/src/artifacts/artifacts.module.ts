import { Module } from '@nestjs/common';
import { ArtifactsController } from './artifacts.controller';
import { Uploads } from './uploads';

@Module({ controllers: [ArtifactsController], providers: [Uploads], exports: [Uploads] })
export class ArtifactsModule {}
