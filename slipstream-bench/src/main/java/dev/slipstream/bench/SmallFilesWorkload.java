/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Workload 4: many small objects (1,000 of 256 KiB at full size) read one after another, each start to
 * end, after one listing of their directory. Two ways: {@code small-files} opens each with the status the
 * listing gave (as a task handed its split's statuses does) and declares the reading order;
 * {@code small-files-open} opens each by its path alone, as plain record readers call
 * {@code FileSystem.open(path)}, and declares nothing. Each object's CRC32C is checked.
 */
final class SmallFilesWorkload implements Workload {
  static final String NAME = "small-files";
  static final String BY_PATH = "small-files-open";
  static final String PREFIX = "small/";

  private final Map<String, Long> expected = new HashMap<>();
  private final boolean byPath;
  private int fileBytes;

  SmallFilesWorkload(boolean byPath) {
    this.byPath = byPath;
  }

  @Override
  public String name() {
    return byPath ? BY_PATH : NAME;
  }

  @Override
  public String description() {
    return expected.size() + " objects of " + Report.binary(fileBytes) + " read one after another, after one"
        + " listing of their directory" + (byPath ? ", each opened by its path alone (open(path), no status)"
        : ", each opened with its listed status");
  }

  @Override
  public String notApplicable(String reader) {
    if (byPath && reader.equals(Readers.SLIPSTREAM_CORE)) {
      return "a Hadoop FileSystem call: a core API caller opens the listing's entry (small-files)";
    }
    return null;
  }

  static String key(int i) {
    return PREFIX + String.format("part-%05d.bin", i);
  }

  @Override
  public void upload(Fixture fixture) {
    BenchSizes sizes = fixture.sizes();
    fileBytes = sizes.smallFileBytes();
    for (int i = 0; i < sizes.smallFiles(); i++) {
      String key = key(i);
      expected.put(key, fixture.putGenerated(key, fixture.seed() + 7919L * (i + 1), fileBytes));
    }
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) {
    Map<String, Long> actual = new HashMap<>();
    return new Run() {
      @Override
      public long execute() throws IOException {
        List<FileRef> files = session.list(PREFIX);
        if (!byPath) {
          session.readingInOrder(files); // Slipstream's open-ahead; a no-op for the peers
        }
        byte[] buf = new byte[1 << 16];
        CRC32C crc = new CRC32C();
        long total = 0;
        for (FileRef f : files) {
          crc.reset();
          try (ObjectStream in = byPath ? session.openPath(f.key()) : session.open(f)) {
            int n;
            while ((n = in.read(buf, 0, buf.length)) > 0) {
              crc.update(buf, 0, n);
              total += n;
            }
          }
          actual.put(f.key(), crc.getValue());
        }
        return total;
      }

      @Override
      public String verify() {
        if (!actual.keySet().equals(expected.keySet())) {
          return "listed and read " + actual.size() + " objects, expected " + expected.size();
        }
        for (Map.Entry<String, Long> e : expected.entrySet()) {
          if (!e.getValue().equals(actual.get(e.getKey()))) {
            return "object " + e.getKey() + " was read with other bytes than its own";
          }
        }
        return null;
      }
    };
  }
}
