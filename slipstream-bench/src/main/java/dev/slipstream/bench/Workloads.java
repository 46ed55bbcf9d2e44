/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.List;

/**
 * The workloads the benchmark knows, by name, in run order (see docs/benchmarks.md).
 */
final class Workloads {
  private static final List<String> NAMES = List.of(SequentialWorkload.NAME, ParquetWorkload.FULL,
      ParquetWorkload.PROJECTED, RandomWorkload.NAME, SmallFilesWorkload.NAME, SmallFilesWorkload.BY_PATH,
      ListingWorkload.DIRECTORIES, ListingWorkload.PER_DIRECTORY,
      ListingWorkload.GLOB, ListingWorkload.RECURSIVE, ReReadWorkload.FIRST, ReReadWorkload.AGAIN);

  /** Run only when asked for: the same reads with hedging off, to compare with on the heavy-tail profile. */
  private static final List<String> ON_REQUEST = List.of(SequentialWorkload.NAME + UnhedgedWorkload.SUFFIX,
      ParquetWorkload.FULL + UnhedgedWorkload.SUFFIX);

  private Workloads() {}

  /** The workloads a run makes by default. */
  static List<String> names() {
    return NAMES;
  }

  static void checkName(String name) {
    if (!NAMES.contains(name) && !ON_REQUEST.contains(name)) {
      throw new IllegalArgumentException("unknown workload '" + name + "'; workloads: " + String.join(", ", NAMES)
          + ", and on request " + String.join(", ", ON_REQUEST));
    }
  }

  static Workload create(String name) {
    checkName(name);
    if (ON_REQUEST.contains(name)) {
      return new UnhedgedWorkload(create(name.substring(0, name.length() - UnhedgedWorkload.SUFFIX.length())));
    }
    return switch (name) {
      case SequentialWorkload.NAME -> new SequentialWorkload();
      case ParquetWorkload.FULL -> new ParquetWorkload(false);
      case ParquetWorkload.PROJECTED -> new ParquetWorkload(true);
      case RandomWorkload.NAME -> new RandomWorkload();
      case ReReadWorkload.FIRST -> new ReReadWorkload(false);
      case ReReadWorkload.AGAIN -> new ReReadWorkload(true);
      case ListingWorkload.DIRECTORIES, ListingWorkload.PER_DIRECTORY, ListingWorkload.GLOB, ListingWorkload.RECURSIVE ->
          new ListingWorkload(name);
      case SmallFilesWorkload.BY_PATH -> new SmallFilesWorkload(true);
      default -> new SmallFilesWorkload(false);
    };
  }
}
