/**
 * A route parameter named `secret` is a credential (the secret of a booking link: whoever has the path
 * can book). Its value never reaches a log line or an audit row: the path is recorded with the segment
 * replaced, so an operator still sees which route and which link slug were asked for.
 */
export function pathWithoutSecrets(
  path: string,
  params: Readonly<Record<string, string>> | undefined,
): string {
  const secret = params?.secret;
  if (secret === undefined || secret === '') return path;
  return path
    .split('/')
    .map((segment) => (segment === secret || safeDecode(segment) === secret ? '[secret]' : segment))
    .join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
