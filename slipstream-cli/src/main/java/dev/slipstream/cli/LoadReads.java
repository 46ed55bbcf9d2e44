/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.OpenOptions;
import dev.slipstream.ReadPolicy;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The kinds of read a load makes, each checked byte for byte against the data's known bytes: a wrong
 * byte is counted (the read still returns), never thrown, so that the load goes on and reports them all.
 */
final class LoadReads {
  static final List<String> KINDS = List.of("sequential", "random", "footer", "small");

  private final Slipstream client;
  private final LoadData data;
  private final LongAdder wrongReads = new LongAdder();
  private final AtomicLong firstWrong = new AtomicLong(-1);
  private volatile S3Location firstWrongIn;

  LoadReads(Slipstream client, LoadData data) {
    this.client = client;
    this.data = data;
  }

  /** Makes one read of {@code kind} (one of {@link #KINDS}); returns the bytes read. */
  long read(String kind, Random random) throws IOException {
    return switch (kind) {
      case "sequential" -> sequential();
      case "random" -> random(random);
      case "footer" -> footer(random);
      case "small" -> small(random.nextInt(LoadData.SMALL_FILES));
      default -> throw new IllegalArgumentException("unknown kind of read " + kind);
    };
  }

  long wrongReads() {
    return wrongReads.sum();
  }

  /** The first wrong read, as "object at byte N", or null. */
  String firstWrong() {
    return firstWrongIn == null ? null : firstWrongIn + " at byte " + firstWrong.get();
  }

  private long sequential() throws IOException {
    long size = data.bigSize();
    byte[] buf = new byte[1 << 20];
    long pos = 0;
    try (SlipstreamInputStream in = client.open(data.big(), OpenOptions.length(size).withPolicy(ReadPolicy.SEQUENTIAL))) {
      int n;
      while ((n = in.read(buf, 0, buf.length)) > 0) {
        check(data.big(), data.seed(), pos, buf, n);
        pos += n;
      }
    }
    if (pos != size) {
      throw new IOException("read " + pos + " of " + size + " bytes of " + data.big());
    }
    return pos;
  }

  private long random(Random random) throws IOException {
    long size = data.bigSize();
    byte[] buf = new byte[64 * 1024];
    try (SlipstreamInputStream in = client.open(data.big(), OpenOptions.length(size).withPolicy(ReadPolicy.RANDOM))) {
      for (int i = 0; i < 8; i++) {
        long at = (long) (random.nextDouble() * (size - buf.length));
        in.readFully(at, buf, 0, buf.length);
        check(data.big(), data.seed(), at, buf, buf.length);
      }
    }
    return 8L * buf.length;
  }

  /** A Parquet reader's pattern: the last 64 KiB, then two 1 MiB ranges. */
  private long footer(Random random) throws IOException {
    long size = data.bigSize();
    byte[] tail = new byte[64 * 1024];
    byte[] range = new byte[1 << 20];
    try (SlipstreamInputStream in = client.open(data.big(), OpenOptions.length(size).withPolicy(ReadPolicy.RANDOM))) {
      in.readFully(size - tail.length, tail, 0, tail.length);
      check(data.big(), data.seed(), size - tail.length, tail, tail.length);
      for (int i = 0; i < 2; i++) {
        long at = (long) (random.nextDouble() * (size - tail.length - range.length));
        in.readFully(at, range, 0, range.length);
        check(data.big(), data.seed(), at, range, range.length);
      }
    }
    return tail.length + 2L * range.length;
  }

  private long small(int i) throws IOException {
    S3Location at = data.small(i);
    try (SlipstreamInputStream in = client.open(at, OpenOptions.length(LoadData.SMALL_SIZE))) {
      byte[] all = in.readAllBytes();
      if (all.length != LoadData.SMALL_SIZE) {
        throw new IOException("read " + all.length + " of " + LoadData.SMALL_SIZE + " bytes of " + at);
      }
      check(at, data.smallSeed(i), 0, all, all.length);
      return all.length;
    }
  }

  private void check(S3Location what, long dataSeed, long offset, byte[] b, int n) {
    long bad = TestData.firstMismatch(dataSeed, offset, b, 0, n);
    if (bad >= 0) {
      wrongReads.increment();
      if (firstWrong.compareAndSet(-1, bad)) {
        firstWrongIn = what;
      }
    }
  }
}
