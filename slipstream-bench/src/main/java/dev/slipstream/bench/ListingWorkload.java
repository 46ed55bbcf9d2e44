/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Workload 5: listing for split computation (docs/benchmarks.md), on a partitioned tree
 * ({@code listing/parts/date=NNNNN/part-K.csv}: 2,000 directories of 6 small files under {@code --full})
 * and a flat prefix ({@code listing/flat/}: 100,000 keys under {@code --full}). Two workloads:
 *
 * <ul>
 *   <li>{@value #DIRECTORIES}: the files of every partition directory, through
 *       {@code listStatus(Path[])} as a job's input format hands it its input directories. S3A lists them
 *       one directory after another on one thread (at least one LIST each); Slipstream lists their parent
 *       once, merge-joined against them, in parallel key ranges.
 *   <li>{@value #GLOB}: the same files through FileInputFormat's default (one thread) listing of the
 *       input glob {@code listing/parts/date=*}: {@code globStatus(glob, hiddenFileFilter)}, then
 *       {@code listLocatedStatus} of every directory matched (the calls of
 *       {@code FileInputFormat.singleThreadedListStatus}, made on the reader's FileSystem). S3A: one
 *       listing of {@code parts/}, then one per directory; Slipstream: one flat listing of
 *       {@code parts/date=} in parallel key ranges, the directories answered from it.
 *   <li>{@value #PER_DIRECTORY}: the same files through one {@code listStatus(dir)} per partition
 *       directory, in their order, on one thread: what Spark's file index, Hive's and Trino's directory
 *       listers call. S3A: one LIST each; Slipstream: the second call shows a walk over siblings, and
 *       their parent is listed flat from there (one page, then doubling), the calls answered from it.
 *   <li>{@value #RECURSIVE}: every file under {@code listing/} (tree and flat prefix) through
 *       {@code listFiles(path, true)}: S3A's one flat listing, page after page, against Slipstream's
 *       flat listing cut into parallel key ranges.
 * </ul>
 *
 * <p>The time is what counts, with the LIST column. The MB/s column is the bytes of the files listed per
 * second of listing, so that the ratio to S3A classic is the speed-up; objects are tiny. Only one S3A
 * reader runs: S3A's input streams play no part in listing. The check: exactly the files of the tree,
 * each with its length.
 */
final class ListingWorkload implements Workload {
  static final String DIRECTORIES = "listing";
  static final String GLOB = "listing-glob";
  static final String PER_DIRECTORY = "listing-per-dir";
  static final String RECURSIVE = "listing-recursive";
  static final String ROOT = "listing/";
  static final int FILES_PER_DIRECTORY = 6;

  private final String name;
  private final boolean recursive;
  private final Map<String, Integer> partitionFiles = new LinkedHashMap<>();
  private final Map<String, Integer> allFiles = new LinkedHashMap<>();
  private final List<String> directories = new ArrayList<>();

  ListingWorkload(String name) {
    this.name = name;
    this.recursive = name.equals(RECURSIVE);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    if (name.equals(PER_DIRECTORY)) {
      return "one listStatus(dir) per partition directory (" + directories.size() + " of " + FILES_PER_DIRECTORY
          + " small files), one after another on one thread, as Spark's file index and Hive's and Trino's "
          + "listers call it; MB/s = bytes of the files listed per second";
    }
    if (name.equals(GLOB)) {
      return "FileInputFormat's one-thread listing of the input glob " + ROOT + "parts/date=* ("
          + directories.size() + " directories of " + FILES_PER_DIRECTORY + " small files): globStatus(glob, "
          + "hiddenFileFilter), then listLocatedStatus of each directory matched; MB/s = bytes of the files "
          + "listed per second";
    }
    return recursive
        ? "listFiles(recursive) of " + allFiles.size() + " small files: " + directories.size() + " partition"
            + " directories of " + FILES_PER_DIRECTORY + " and " + (allFiles.size() - partitionFiles.size())
            + " keys under one flat prefix; MB/s = bytes of the files listed per second"
        : "listStatus(Path[]) of " + directories.size() + " partition directories of " + FILES_PER_DIRECTORY
            + " small files each, as split computation lists its input; MB/s = bytes of the files listed per second";
  }

  @Override
  public String notApplicable(String reader) {
    if (name.equals(GLOB) && reader.equals(Readers.SLIPSTREAM_CORE)) {
      return "a Hadoop FileSystem call: the core API has no glob";
    }
    if (name.equals(PER_DIRECTORY) && reader.equals(Readers.SLIPSTREAM_CORE)) {
      return "a Hadoop FileSystem call pattern: a core API caller lists the directories at once (listing)";
    }
    if (reader.equals(Readers.S3A_PREFETCH) || reader.equals(Readers.S3A_ANALYTICS)) {
      return "lists exactly as " + Readers.S3A_CLASSIC + ": S3A's input streams play no part in listing";
    }
    return null;
  }

  @Override
  public void upload(Fixture fixture) {
    BenchSizes sizes = fixture.sizes();
    for (int d = 0; d < sizes.listingDirectories(); d++) {
      String dir = String.format("%sparts/date=%05d/", ROOT, d);
      directories.add(dir);
      for (int f = 0; f < FILES_PER_DIRECTORY; f++) {
        partitionFiles.put(dir + "part-" + f + ".csv", 100 + (d * 7 + f) % 50);
      }
    }
    allFiles.putAll(partitionFiles);
    for (int i = 0; i < sizes.listingFlatKeys(); i++) {
      allFiles.put(String.format("%sflat/part-%06d.bin", ROOT, i), 100 + i % 31);
    }
    if (fixture.firstTime(ROOT)) {
      fixture.putSmall(allFiles);
    }
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) {
    Map<String, Long> listed = new HashMap<>();
    Map<String, Integer> expected = recursive ? allFiles : partitionFiles;
    return new Run() {
      @Override
      public long execute() throws IOException {
        List<FileRef> files = recursive ? session.listRecursive(ROOT)
            : name.equals(GLOB) ? session.listInputGlob(ROOT + "parts/date=*")
            : name.equals(PER_DIRECTORY) ? session.listEachDirectory(directories)
            : session.listDirectories(directories);
        if (files == null) {
          throw new IOException(name + " needs a Hadoop FileSystem");
        }
        long bytes = 0;
        for (FileRef f : files) {
          listed.merge(f.key(), f.length(), (a, b) -> -1L); // -1: listed twice
          bytes += f.length();
        }
        return bytes;
      }

      @Override
      public String verify() {
        if (listed.size() != expected.size()) {
          return "listed " + listed.size() + " files, expected " + expected.size();
        }
        for (Map.Entry<String, Integer> e : expected.entrySet()) {
          Long got = listed.get(e.getKey());
          if (got == null) {
            return "file " + e.getKey() + " was not listed";
          }
          if (got != e.getValue().longValue()) {
            return "file " + e.getKey() + " was listed " + (got < 0 ? "twice" : "with length " + got)
                + ", expected length " + e.getValue();
          }
        }
        return null;
      }
    };
  }
}
