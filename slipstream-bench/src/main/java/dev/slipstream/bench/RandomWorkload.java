/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Workload 3: positional reads of 64 KiB at random offsets of the sequential workload's object, one
 * thread, one open stream, the same offsets in every run. Each read's CRC32C is kept during the run and
 * compared with the source's afterwards.
 */
final class RandomWorkload implements Workload {
  static final String NAME = "random";

  private long[] offsets;
  private long[] expected;
  private int readBytes;
  private long length;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return offsets.length + " positional reads of " + Report.binary(readBytes) + " at random offsets of the "
        + Report.binary(length) + " object, one stream, one thread";
  }

  @Override
  public void upload(Fixture fixture) {
    BenchSizes sizes = fixture.sizes();
    length = sizes.sequentialBytes();
    readBytes = sizes.randomReadBytes();
    long dataSeed = SequentialWorkload.dataSeed(fixture.seed());
    fixture.putGenerated(SequentialWorkload.KEY, dataSeed, length);
    SplittableRandom random = new SplittableRandom(fixture.seed() ^ 0x52414e444f4dL);
    offsets = new long[sizes.randomReads()];
    expected = new long[offsets.length];
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = random.nextLong(length - readBytes + 1);
      expected[i] = TestData.crc32c(dataSeed, offsets[i], readBytes);
    }
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    FileRef ref = session.stat(SequentialWorkload.KEY);
    long[] actual = new long[offsets.length];
    return new Run() {
      @Override
      public long execute() throws IOException {
        byte[] buf = new byte[readBytes];
        CRC32C crc = new CRC32C();
        try (ObjectStream in = session.open(ref)) {
          for (int i = 0; i < offsets.length; i++) {
            in.readFully(offsets[i], buf, 0, readBytes);
            crc.reset();
            crc.update(buf, 0, readBytes);
            actual[i] = crc.getValue();
          }
        }
        return (long) offsets.length * readBytes;
      }

      @Override
      public String verify() {
        for (int i = 0; i < offsets.length; i++) {
          if (actual[i] != expected[i]) {
            return "the read at offset " + offsets[i] + " returned other bytes than the object's";
          }
        }
        return Arrays.equals(actual, expected) ? null : "reads differ";
      }
    };
  }
}
