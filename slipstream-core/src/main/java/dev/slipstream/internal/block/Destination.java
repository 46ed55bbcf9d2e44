/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import java.util.List;

/**
 * Where the bytes of a range land: one array from an offset, or buffers of one size laid end to end, each
 * holding the next {@code size} bytes of the range. The second is how one GET fills a run of the small
 * pieces a stream holds ahead of its reader ({@link HeapRegions#largestOrdinary}): the heap sees small
 * arrays, S3 sees one request. Byte {@code at} of the range lands at {@link #offset}{@code (at)} of {@link
 * #array}{@code (at)}, with {@link #room}{@code (at)} bytes of that array after it. Immutable.
 */
public final class Destination {
  private final byte[][] arrays;
  /** Where the range's first byte lands, counted over the arrays end to end. */
  private final long base;
  /** The bytes each array holds; for one array, as many as an array can. */
  private final int size;

  private Destination(byte[][] arrays, long base, int size) {
    this.arrays = arrays;
    this.base = base;
    this.size = size;
  }

  /** {@code dst} from {@code off} on. */
  public static Destination of(byte[] dst, int off) {
    return new Destination(new byte[][] {dst}, off, Integer.MAX_VALUE);
  }

  /**
   * {@code buffers} end to end, each holding {@code size} bytes of the range (the last may hold fewer):
   * each must be at least {@code size} long but the last.
   */
  public static Destination pieces(List<byte[]> buffers, int size) {
    if (size <= 0 || buffers.isEmpty()) {
      throw new IllegalArgumentException("pieces need a positive size and a buffer: " + size + ", "
          + buffers.size() + " buffers");
    }
    byte[][] arrays = buffers.toArray(byte[][]::new);
    for (int i = 0; i < arrays.length - 1; i++) {
      if (arrays[i].length < size) {
        throw new IllegalArgumentException("piece " + i + " holds " + arrays[i].length + " bytes, under " + size);
      }
    }
    return new Destination(arrays, 0, size);
  }

  /** This destination from byte {@code at} of the range on: its byte 0 is this one's {@code at}. */
  public Destination from(long at) {
    return at == 0 ? this : new Destination(arrays, base + at, size);
  }

  /** The array byte {@code at} of the range lands in. */
  public byte[] array(long at) {
    return arrays[(int) ((base + at) / size)];
  }

  /** Where in {@link #array} byte {@code at} of the range lands. */
  public int offset(long at) {
    return (int) ((base + at) % size);
  }

  /** How many bytes of the range from {@code at} land in the same array, one after another. */
  public int room(long at) {
    int i = (int) ((base + at) / size);
    return Math.min(size, arrays[i].length) - offset(at);
  }

  /** Whether bytes {@code [at, at + len)} of the range land in one array. */
  public boolean inOneArray(long at, int len) {
    return room(at) >= len;
  }

  /** Copies bytes {@code [at, at + len)} of the range into {@code dst[off..]}. */
  public void copyTo(long at, byte[] dst, int off, int len) {
    for (int done = 0; done < len; ) {
      int n = Math.min(len - done, room(at + done));
      System.arraycopy(array(at + done), offset(at + done), dst, off + done, n);
      done += n;
    }
  }
}
