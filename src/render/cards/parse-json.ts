import type { LocalizedText } from '../../errors/index.js';
import { CardSyntaxError } from '../errors/card-syntax-error.js';
import { firstJsonError } from './json-first-error.js';
import { lineColumn } from './line-column.js';

/** The scan's messages (V8's wording) in Chinese; "Unexpected token 'x'" by pattern. */
const JSON_PROBLEMS_ZH: Readonly<Record<string, string>> = {
  'not valid JSON': '不是合法的 JSON',
  'Unexpected end of JSON input': 'JSON 意外结束',
  'Unterminated string': '字符串没有结束',
  'Bad control character in string literal': '字符串里有未转义的控制字符',
  'Bad Unicode escape': 'Unicode 转义无效',
  'Bad escaped character': '转义字符无效',
  'No number after minus sign': '负号后没有数字',
  'Unterminated fractional number': '小数点后没有数字',
  'Exponent part is missing a number': '指数部分缺少数字',
  "Expected property name or '}'": "应为属性名或 '}'",
  'Expected double-quoted property name': '属性名应使用双引号',
  "Expected ':' after property name": "属性名后应为 ':'",
  "Expected ',' or '}' after property value": "属性值后应为 ',' 或 '}'",
  "Expected ',' or ']' after array element": "数组元素后应为 ',' 或 ']'",
  'Unexpected non-whitespace character after JSON': 'JSON 之后还有多余的内容',
};

function jsonProblem(message: string): LocalizedText {
  const token = /^Unexpected token '(.*)'$/su.exec(message);
  const zh = token ? `意外的字符 '${token[1]}'` : (JSON_PROBLEMS_ZH[message] ?? message);
  return { 'zh-CN': zh, 'en-US': message };
}

/**
 * JSON.parse, with the failure given as line and column (an offset into a rendered template is
 * something nobody can count by hand). Where and why come from firstJsonError, never from the
 * engine's message.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const error = firstJsonError(text) ?? { offset: 0, message: 'not valid JSON' };
    throw new CardSyntaxError('json', jsonProblem(error.message), lineColumn(text, error.offset));
  }
}
