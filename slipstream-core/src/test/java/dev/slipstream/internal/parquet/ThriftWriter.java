/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;

/**
 * A Thrift compact-protocol writer for tests, just enough to write a Parquet footer field by field (and to
 * break one): independent of the parser it feeds.
 */
public final class ThriftWriter {
  public static final int TRUE = 1;
  public static final int BYTE = 3;
  public static final int I32 = 5;
  public static final int I64 = 6;
  public static final int DOUBLE = 7;
  public static final int BINARY = 8;
  public static final int LIST = 9;
  public static final int MAP = 11;
  public static final int STRUCT = 12;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ArrayDeque<Integer> last = new ArrayDeque<>(List.of(0));

  public byte[] bytes() {
    return out.toByteArray();
  }

  public ThriftWriter field(int id, int type) {
    int delta = id - last.peek();
    if (delta > 0 && delta <= 15) {
      out.write(delta << 4 | type);
    } else {
      out.write(type);
      varint((id << 1) ^ (id >> 31));
    }
    last.pop();
    last.push(id);
    return this;
  }

  public void fieldStart() {
    last.push(0);
  }

  public void fieldEnd() {
    last.pop();
  }

  public void stop() {
    out.write(0);
  }

  public ThriftWriter listHeader(int size, int type) {
    if (size >= 0 && size < 15) {
      out.write(size << 4 | type);
    } else {
      out.write(0xf0 | type);
      varint(size & 0xffffffffL);
    }
    return this;
  }

  public ThriftWriter binary(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    varint(b.length);
    out.write(b, 0, b.length);
    return this;
  }

  public ThriftWriter raw(int b) {
    out.write(b);
    return this;
  }

  public ThriftWriter raw(byte[] b) {
    out.writeBytes(b);
    return this;
  }

  public ThriftWriter varint(long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
    return this;
  }
}
