/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.Slipstream;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * Workload 6, re-read: the same object read twice, as a second job or a second pass over the same input
 * does. Two workloads so that both reads are measured the same way, each in runs of its own: {@code
 * first-read} copies the object to a local file on a fresh session (an empty cache); {@code re-read} first
 * reads it once, untimed, then times a new stream of the same session copying it again. Slipstream runs
 * both with {@code cache.disk.mode=all}, so its first read also writes every block to its (fresh) disk
 * cache; its re-read comes from its memory cache while the object fits in memory.max (the default
 * size), else from the disk cache (the {@code --full} size, larger than the benchmark's 512 MiB); peers
 * run as they are (whatever they keep between streams of one FileSystem is theirs to use). The object is
 * a quarter of the sequential one.
 */
final class ReReadWorkload implements Workload {
  static final String FIRST = "first-read";
  static final String AGAIN = "re-read";
  static final String KEY = "reread/object.bin";

  private final boolean again;
  private long length;
  private long crc;

  ReReadWorkload(boolean again) {
    this.again = again;
  }

  @Override
  public String name() {
    return again ? AGAIN : FIRST;
  }

  @Override
  public String description() {
    String what = Report.binary(length) + " object start to end, writing it to a local temp file";
    return again ? "read a " + what + ", a second time (the first read untimed, in the same session)"
        : "read a " + what + ", the first time (fresh session, empty caches): the baseline of re-read";
  }

  @Override
  public Map<String, String> slipstreamSettings() {
    return Map.of("cache.disk.mode", "all");
  }

  @Override
  public void upload(Fixture fixture) {
    length = Math.max(1, fixture.sizes().sequentialBytes() / 4);
    crc = fixture.putGenerated(KEY, fixture.seed() + 6, length);
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    FileRef ref = session.stat(KEY);
    if (again) {
      byte[] buf = new byte[1 << 20];
      try (ObjectStream in = session.open(ref)) {
        while (in.read(buf, 0, buf.length) > 0) {
          // the first read: only its side effects (caches) matter
        }
      }
      // Slipstream writes its disk cache in the background; a re-read comes later than that in real life.
      Slipstream.awaitDiskCacheWrites(Duration.ofMinutes(2));
    }
    return SequentialWorkload.copyRun(session, ref, fixture.scratch().resolve(name() + "-copy.bin"), length, crc, false);
  }
}
