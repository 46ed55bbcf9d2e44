/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON parser for reading a run's {@code results.json} back: objects become ordered maps,
 * arrays lists, numbers {@code Double}, and {@code true}, {@code false}, {@code null} themselves.
 */
final class Json {
  private final String s;
  private int i;

  private Json(String s) {
    this.s = s;
  }

  /** The value {@code text} holds; IllegalArgumentException, with the offset, if it is not JSON. */
  static Object parse(String text) {
    Json p = new Json(text);
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.error("trailing characters");
    }
    return v;
  }

  private Object value() {
    ws();
    if (i >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(i);
    if (c == '{') {
      return object();
    } else if (c == '[') {
      return array();
    } else if (c == '"') {
      return string();
    } else if (s.startsWith("true", i)) {
      i += 4;
      return Boolean.TRUE;
    } else if (s.startsWith("false", i)) {
      i += 5;
      return Boolean.FALSE;
    } else if (s.startsWith("null", i)) {
      i += 4;
      return null;
    }
    return number();
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    ws();
    if (peek() == '}') {
      i++;
      return m;
    }
    while (true) {
      ws();
      if (peek() != '"') {
        throw error("expected a name");
      }
      String name = string();
      ws();
      expect(':');
      m.put(name, value());
      ws();
      if (peek() == ',') {
        i++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    i++;
    ws();
    if (peek() == ']') {
      i++;
      return l;
    }
    while (true) {
      l.add(value());
      ws();
      if (peek() == ',') {
        i++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    StringBuilder b = new StringBuilder();
    i++;
    while (i < s.length()) {
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      if (i >= s.length()) {
        break;
      }
      char e = s.charAt(i++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          if (i + 4 > s.length()) {
            throw error("short \\u escape");
          }
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
    throw error("unterminated string");
  }

  private Double number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw error("unexpected character '" + s.charAt(i) + "'");
    }
    try {
      return Double.valueOf(s.substring(start, i));
    } catch (NumberFormatException e) {
      throw error("bad number " + s.substring(start, i));
    }
  }

  private char peek() {
    return i < s.length() ? s.charAt(i) : '\0';
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    i++;
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("not valid JSON at offset " + i + ": " + what);
  }
}
