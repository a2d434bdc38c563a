// The CommonJS side of the declarations (.d.cts through the "require" condition), under nodenext.
import contracts = require('@agw/contracts');
import guard = require('@agw/guard');
import client = require('@agw/client');

const ajv = contracts.createAjv();
ajv.addFormat('smoke', /./);
export const validator = guard.createAjvSchemaValidator();
export const sdk = client.createClient({ baseUrl: 'http://127.0.0.1:1' });
