export { camelToSnake, snakeToCamel, toCamelDeep, toSnakeDeep, type CasingOptions } from './casing';
