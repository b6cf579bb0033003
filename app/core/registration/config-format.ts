/**
 * The file formats clients keep their MCP servers in — JSON, JSON with comments, TOML — behind
 * one interface: parse the text to plain values, and give back the text with one value changed,
 * edited in place so that everything else in the file stays as the user wrote it.
 */
import { JsonShapeError, setJsonPath } from './json-edit.js';
import { type JsonObject, type JsonValue, JsonSyntaxError, type ParseOptions, isJsonObject, nodeValue, parseJson } from './jsonc.js';
import { TomlShapeError, setTomlTable } from './toml-edit.js';
import { TomlSyntaxError, parseToml } from './toml.js';

/** The text is not valid in the format; the message says where. */
export class ConfigSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigSyntaxError';
  }
}

/** The file's layout does not allow the read or the change (top level not an object…). */
export class ConfigShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigShapeError';
  }
}

export interface ConfigDocument {
  /** The document's plain value; undefined when the file holds nothing (or only comments). */
  readonly value: JsonObject | undefined;
  /**
   * The text with the value at `path` set, or removed when `value` is undefined; the text
   * itself when nothing changes. Throws ConfigShapeError when the file's layout forbids it.
   */
  set(path: readonly string[], value: JsonValue | undefined): string;
}

export interface ConfigFormat {
  readonly name: 'JSON' | 'JSONC' | 'TOML';
  /** Throws ConfigSyntaxError or ConfigShapeError. */
  parse(text: string): ConfigDocument;
}

function jsonFormat(name: 'JSON' | 'JSONC', options: ParseOptions): ConfigFormat {
  return {
    name,
    parse(text) {
      let parsed;
      try {
        parsed = parseJson(text, options);
      } catch (err) {
        if (err instanceof JsonSyntaxError) throw new ConfigSyntaxError(err.message);
        throw err;
      }
      const value = parsed.root === undefined ? undefined : nodeValue(parsed.root);
      if (value !== undefined && !isJsonObject(value)) throw new ConfigShapeError('its top level is not a JSON object');
      return {
        value,
        set(path, next) {
          try {
            return setJsonPath(text, parsed, path, next, options);
          } catch (err) {
            if (err instanceof JsonShapeError) throw new ConfigShapeError(err.message);
            throw err;
          }
        },
      };
    },
  };
}

/** Strict JSON, as JSON.parse reads it. */
export const JSON_FORMAT = jsonFormat('JSON', {});
/** JSON with comments and trailing commas, as VS Code reads its settings. */
export const JSONC_FORMAT = jsonFormat('JSONC', { comments: true, trailingCommas: true });
/** JSON with comments but no trailing commas: Gemini CLI strips comments, then calls JSON.parse. */
export const JSON_WITH_COMMENTS_FORMAT = jsonFormat('JSONC', { comments: true });

export const TOML_FORMAT: ConfigFormat = {
  name: 'TOML',
  parse(text) {
    let parsed: ReturnType<typeof parseToml>;
    try {
      parsed = parseToml(text);
    } catch (err) {
      if (err instanceof TomlSyntaxError) throw new ConfigSyntaxError(err.message);
      throw err;
    }
    const empty = parsed.statements.length === 0;
    return {
      value: empty ? undefined : parsed.value,
      set(path, next) {
        if (next !== undefined && !isJsonObject(next)) throw new ConfigShapeError('only a table can be set in a TOML file');
        try {
          return setTomlTable(text, parsed, path, next);
        } catch (err) {
          if (err instanceof TomlShapeError) throw new ConfigShapeError(err.message);
          throw err;
        }
      },
    };
  },
};
