/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON parser for the tests (objects, arrays, strings, numbers as Double, true, false,
 * null), so that results.json is checked by something other than the code that wrote it.
 */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
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
    if (s.charAt(i) == '}') {
      i++;
      return m;
    }
    while (true) {
      ws();
      String key = string();
      ws();
      expect(':');
      if (m.put(key, value()) != null) {
        throw error("duplicate key " + key);
      }
      ws();
      if (s.charAt(i) == ',') {
        i++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> a = new ArrayList<>();
    i++;
    ws();
    if (s.charAt(i) == ']') {
      i++;
      return a;
    }
    while (true) {
      a.add(value());
      ws();
      if (s.charAt(i) == ',') {
        i++;
      } else {
        expect(']');
        return a;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c < 0x20) {
        throw error("control character in string");
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case '"', '\\', '/' -> b.append(e);
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> {
            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> throw error("bad escape");
        }
      } else {
        b.append(c);
      }
    }
  }

  private Double number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw error("unexpected character '" + s.charAt(i) + "'");
    }
    return Double.valueOf(s.substring(start, i));
  }

  private void expect(char c) {
    if (i >= s.length() || s.charAt(i) != c) {
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
    return new IllegalArgumentException(what + " at " + i);
  }
}
