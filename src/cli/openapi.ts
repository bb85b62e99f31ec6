import { buildOpenApiDocument } from '../service/http/app.ts';

/** `tenderbot openapi`: the service's OpenAPI document on standard output, nothing else, and no port opened. */
export async function runOpenApi(): Promise<number> {
  const document = await buildOpenApiDocument();
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  return 0;
}
