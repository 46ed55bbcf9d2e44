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

  private Workloads() {}

  static List<String> names() {
    return NAMES;
  }

  static void checkName(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("unknown workload '" + name + "'; workloads: " + String.join(", ", NAMES));
    }
  }

  static Workload create(String name) {
    checkName(name);
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
