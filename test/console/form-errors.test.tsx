import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../console/src/api.ts';
import { apiErrorField, FormError, fieldMessage, fieldWithin } from '../../console/src/ui/form-errors.tsx';

const invalid = new ApiError(400, 40000, 'Invalid parameter: img_list[0].url: must be an http(s) URL', {
  field: 'img_list[0].url',
});

describe('form errors', () => {
  it('reads the field an API validation error names', () => {
    expect(apiErrorField(invalid)).toBe('img_list[0].url');
    expect(apiErrorField(new ApiError(404, 40400, 'not found'))).toBeUndefined();
    expect(apiErrorField(new Error('x'))).toBeUndefined();
  });

  it("shows the API's message at the named field, the form's own first", () => {
    expect(fieldMessage('img_list[0].url', invalid)).toBe(invalid.message);
    expect(fieldMessage('img_list[0].id', invalid)).toBeUndefined();
    expect(fieldMessage('name', invalid, { name: 'Required' })).toBe('Required');
    expect(fieldWithin('img_list[0].url', 'img_list')).toBe(true);
    expect(fieldWithin('img_listing', 'img_list')).toBe(false);
  });

  it('draws the error under the form only when no shown field claims it', () => {
    expect(renderToString(<FormError error={invalid} fields={['img_list[0].url']} />)).toBe('');
    expect(renderToString(<FormError error={invalid} fields={['name']} />)).toContain(
      'must be an http(s) URL',
    );
    expect(
      renderToString(<FormError error={new ApiError(409, 40902, 'already a member')} fields={['name']} />),
    ).toContain('already a member (40902)');
    expect(renderToString(<FormError error={undefined} fields={[]} />)).toBe('');
  });
});
