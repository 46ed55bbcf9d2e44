/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A buffered input that reads head lines and then hands out body bytes without another copy when it
 * can. It counts the bytes consumed, which tells a retry whether the upstream said anything at all.
 */
final class Wire {
  private final InputStream in;
  private final byte[] buf = new byte[8192];
  private int pos;
  private int lim;
  private long consumed;

  Wire(InputStream in) {
    this.in = in;
  }

  long consumed() {
    return consumed;
  }

  /** Buffered bytes available, reading if there are none; -1 at end of stream. */
  int fill() throws IOException {
    if (pos < lim) {
      return lim - pos;
    }
    pos = 0;
    lim = 0;
    int n = in.read(buf, 0, buf.length);
    if (n > 0) {
      lim = n;
    }
    return n;
  }

  int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    int n;
    if (pos < lim) {
      n = Math.min(len, lim - pos);
      System.arraycopy(buf, pos, b, off, n);
      pos += n;
    } else {
      n = in.read(b, off, len);
    }
    if (n > 0) {
      consumed += n;
    }
    return n;
  }

  /** A line without its CR LF (a bare LF is accepted); null on end of stream before its first byte. */
  String readLine(int maxLength) throws IOException {
    StringBuilder sb = null;
    while (true) {
      if (fill() < 0) {
        if (sb == null) {
          return null;
        }
        throw new EOFException("connection closed inside a line");
      }
      int start = pos;
      int i = start;
      while (i < lim && buf[i] != '\n') {
        i++;
      }
      int end = i;
      boolean found = i < lim;
      if (sb == null) {
        sb = new StringBuilder(Math.max(16, end - start));
      }
      for (int k = start; k < end; k++) {
        sb.append((char) (buf[k] & 0xff));
      }
      int used = (found ? i + 1 : i) - start;
      pos += used;
      consumed += used;
      if (found) {
        int len = sb.length();
        if (len > 0 && sb.charAt(len - 1) == '\r') {
          sb.setLength(len - 1);
        }
        return sb.toString();
      }
      if (sb.length() > maxLength) {
        throw new IOException("line longer than " + maxLength + " bytes");
      }
    }
  }
}
