/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.List;

/**
 * The workloads the benchmark knows, by name, in run order (see docs/benchmarks.md).
 */
final class Workloads {
  private static final List<String> NAMES = List.of(SequentialWorkload.NAME, SequentialWorkload.PLAIN_OPEN,
      WarmReadWorkload.NAME, ParquetWorkload.FULL, ParquetWorkload.PROJECTED, OrcWorkload.FULL, OrcWorkload.PROJECTED,
      RandomWorkload.NAME, SmallFilesWorkload.NAME, SmallFilesWorkload.BY_PATH,
      ListingWorkload.DIRECTORIES, ListingWorkload.PER_DIRECTORY,
      ListingWorkload.GLOB, ListingWorkload.RECURSIVE, ReReadWorkload.FIRST, ReReadWorkload.AGAIN);

  /**
   * Run only when asked for: the same reads by Slipstream with one feature off (see {@link SlipstreamVariant}):
   * hedging, to compare with on the heavy-tail profile; the memory cache, on a re-read; blocks in parts, to
   * compare with where one connection is as fast as the link (loopback). And the shared tier
   * across two hosts ({@link ClusterWorkload}), which needs memcached installed. And the heap a client keeps
   * per object ({@link ManyObjectsWorkload}), whose 10,000 objects take minutes per reader. And the I/O alone of
   * {@code parquet-projected} ({@link ParquetWorkload#PROJECTED_IO}), to set beside other clients' fetch of the
   * same columns.
   */
  private static final List<String> ON_REQUEST = List.of(ManyObjectsWorkload.NAME, ParquetWorkload.PROJECTED_IO,
      SequentialWorkload.NAME + SlipstreamVariant.UNHEDGED.suffix(),
      SequentialWorkload.NAME + SlipstreamVariant.WHOLE_BLOCKS.suffix(),
      ParquetWorkload.FULL + SlipstreamVariant.UNHEDGED.suffix(),
      ReReadWorkload.AGAIN + SlipstreamVariant.NO_MEMORY_CACHE.suffix(),
      ClusterWorkload.FIRST, ClusterWorkload.REREAD, ClusterWorkload.KILLED);

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

  /** Whether {@code name} is a workload of two hosts, the second in a JVM of its own ({@link ClusterWorkload}). */
  static boolean twoHosts(String name) {
    return name.startsWith("cluster-");
  }

  static Workload create(String name) {
    checkName(name);
    if (twoHosts(name)) {
      return new ClusterWorkload(name);
    }
    if (ON_REQUEST.contains(name)) {
      for (SlipstreamVariant.Kind kind : SlipstreamVariant.KINDS) {
        if (name.endsWith(kind.suffix())) {
          return new SlipstreamVariant(create(name.substring(0, name.length() - kind.suffix().length())), kind);
        }
      }
    }
    return switch (name) {
      case SequentialWorkload.NAME -> new SequentialWorkload(false);
      case SequentialWorkload.PLAIN_OPEN -> new SequentialWorkload(true);
      case WarmReadWorkload.NAME -> new WarmReadWorkload();
      case ParquetWorkload.FULL -> new ParquetWorkload(false);
      case ParquetWorkload.PROJECTED -> new ParquetWorkload(true);
      case ParquetWorkload.PROJECTED_IO -> new ParquetWorkload(true, false);
      case OrcWorkload.FULL -> new OrcWorkload(false);
      case OrcWorkload.PROJECTED -> new OrcWorkload(true);
      case RandomWorkload.NAME -> new RandomWorkload();
      case ReReadWorkload.FIRST -> new ReReadWorkload(false);
      case ReReadWorkload.AGAIN -> new ReReadWorkload(true);
      case ListingWorkload.DIRECTORIES, ListingWorkload.PER_DIRECTORY, ListingWorkload.GLOB, ListingWorkload.RECURSIVE ->
          new ListingWorkload(name);
      case SmallFilesWorkload.BY_PATH -> new SmallFilesWorkload(true);
      case ManyObjectsWorkload.NAME -> new ManyObjectsWorkload();
      default -> new SmallFilesWorkload(false);
    };
  }
}
