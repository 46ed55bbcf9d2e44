/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.zip.CRC32C;

/**
 * The read path's own CPU per GB in a warm JVM: a session first reads another object of the same size
 * start to end, untimed (its JIT-compiled code, connections and buffers are then warm), then reads the
 * sequential object the same way, timed, declaring the whole-file read policy (which starts its prefetch
 * deep: docs/architecture.md, rule 5), the output
 * discarded: no temp file, whose page-cache cost belongs to neither reader. Its CPU column counts the
 * reader's threads only (the caller's and the threads the reader started; see {@link ResourceMeter}), which
 * includes one CRC32C over the bytes read, the same for every reader, to check them.
 */
final class WarmReadWorkload implements Workload {
  static final String NAME = "sequential-warm";
  private static final String WARM_UP_KEY = "sequential/warm-up.bin";
  private static final int BUFFER = 1 << 20;

  private long length;
  private long crc;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "read the " + Report.binary(length) + " sequential object start to end in 1 MiB reads, output"
        + " discarded, declaring the whole-file read policy, after an untimed read of another object of its"
        + " size in the same session; CPU: the reader's threads only";
  }

  @Override
  public boolean readerThreadCpu() {
    return true;
  }

  @Override
  public void upload(Fixture fixture) {
    length = fixture.sizes().sequentialBytes();
    crc = fixture.putGenerated(SequentialWorkload.KEY, SequentialWorkload.dataSeed(fixture.seed()), length);
    fixture.putGenerated(WARM_UP_KEY, fixture.seed() + 31, length);
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    readWhole(session, session.stat(WARM_UP_KEY), new CRC32C());
    FileRef ref = session.stat(SequentialWorkload.KEY);
    CRC32C read = new CRC32C();
    return new Run() {
      @Override
      public long execute() throws IOException {
        return readWhole(session, ref, read);
      }

      @Override
      public String verify() {
        return read.getValue() == crc ? null : "the bytes read have another CRC32C than the object's";
      }
    };
  }

  private static long readWhole(ReadSession session, FileRef ref, CRC32C crc) throws IOException {
    byte[] buf = new byte[BUFFER];
    long total = 0;
    try (ObjectStream in = session.openWhole(ref)) {
      int n;
      while ((n = in.read(buf, 0, buf.length)) > 0) {
        crc.update(buf, 0, n);
        total += n;
      }
    }
    return total;
  }
}
