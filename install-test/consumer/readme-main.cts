// The README's main.ts as CommonJS: the example is required from its compiled .cjs, and
// CommonJS has no top-level await. The install test puts the example's name in place.
import { registry } from './__EXAMPLE__.cjs';

void registry.call('divide', '{"a":1,"b":0}').then((response) => {
  console.log(
    response.status,
    response.status === 'error' ? response.errorInfo.code : '',
  );
});
