/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Workload 1, the reference benchmark: read one large object start to end and write it to a local temp
 * file (the write stands in for a mapper's work), in 1 MiB reads. The copy is checked against the source
 * by CRC32C after the timer stops. {@code sequential} opens the object as Hadoop's {@code FileUtil.copy}
 * does, declaring the whole-file read policy; {@code sequential-plain-open} opens it with no policy, as
 * a record reader does, and shows how fast the reader's prefetch ramps up on its own.
 */
final class SequentialWorkload implements Workload {
  static final String NAME = "sequential";
  static final String PLAIN_OPEN = "sequential-plain-open";
  static final String KEY = "sequential/object.bin";
  private static final int BUFFER = 1 << 20;

  private final boolean plainOpen;
  private long length;
  private long crc;

  SequentialWorkload(boolean plainOpen) {
    this.plainOpen = plainOpen;
  }

  @Override
  public String name() {
    return plainOpen ? PLAIN_OPEN : NAME;
  }

  @Override
  public String description() {
    return "read one " + Report.binary(length) + " object start to end in 1 MiB reads, writing it to a local temp file"
        + (plainOpen ? "; opened with no read policy" : "; opened declaring the whole-file read policy, as FileUtil.copy");
  }

  /** The object's data seed: shared with {@link RandomWorkload}. */
  static long dataSeed(long seed) {
    return seed;
  }

  @Override
  public void upload(Fixture fixture) {
    length = fixture.sizes().sequentialBytes();
    crc = fixture.putGenerated(KEY, dataSeed(fixture.seed()), length);
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    return copyRun(session, session.stat(KEY), fixture.scratch().resolve("sequential-copy.bin"), length, crc,
        !plainOpen);
  }

  /**
   * A run that copies {@code ref} to {@code copy} in 1 MiB reads, checked by CRC32C afterwards; {@code
   * whole}: opened declaring the whole-file read policy.
   */
  static Run copyRun(ReadSession session, FileRef ref, Path copy, long length, long crc, boolean whole) {
    return new Run() {
      @Override
      public long execute() throws IOException {
        byte[] buf = new byte[BUFFER];
        long total = 0;
        try (ObjectStream in = whole ? session.openWhole(ref) : session.open(ref);
            OutputStream out = Files.newOutputStream(copy)) {
          int n;
          while ((n = in.read(buf, 0, buf.length)) > 0) {
            out.write(buf, 0, n);
            total += n;
          }
        }
        return total;
      }

      @Override
      public String verify() throws IOException {
        try {
          long size = Files.size(copy);
          if (size != length) {
            return "the copy has " + size + " bytes, the object " + length;
          }
          CRC32C c = new CRC32C();
          byte[] buf = new byte[BUFFER];
          try (InputStream in = Files.newInputStream(copy)) {
            int n;
            while ((n = in.read(buf)) > 0) {
              c.update(buf, 0, n);
            }
          }
          return c.getValue() == crc ? null : "the copy's CRC32C differs from the object's";
        } finally {
          Files.deleteIfExists(copy);
        }
      }
    };
  }
}
