import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString } from 'class-validator';

/** One `connections[]` item of agents and runbooks: a connection name and the tools enabled on it. */
export class ConnectionBindingInput {
  @IsString() @IsNotEmpty() name!: string;
  @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) enabledTools?: string[];
}
