/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

/**
 * How much data each workload reads. {@link #defaults()} keeps a run on the {@code s3-like} link to
 * about three minutes; {@link #full()} is the reference size of docs/benchmarks.md (a sequential object of
 * several GiB, a 917 MB Parquet file in 16 row groups, 1,000 small files); {@link #smoke()} is for tests.
 *
 * @param sequentialBytes the large object read start to end (also the object of the random reads)
 * @param parquetBytes approximate size of the generated Parquet file
 * @param parquetRowGroups row groups the Parquet file is cut into (approximately)
 * @param randomReads positional reads per run of the random workload
 * @param randomReadBytes size of each positional read
 * @param smallFiles objects of the small-files workload
 * @param smallFileBytes size of each small object
 * @param linkRangeBytes size of each ranged GET of the link capacity probe (16 run in parallel)
 * @param listingDirectories partition directories of the listing workloads (6 small files each)
 * @param listingFlatKeys keys under one flat prefix, listed by the recursive listing workload
 * @param manyObjects distinct small Parquet objects of the many-objects workload
 */
public record BenchSizes(
    long sequentialBytes,
    long parquetBytes,
    int parquetRowGroups,
    int randomReads,
    int randomReadBytes,
    int smallFiles,
    int smallFileBytes,
    int linkRangeBytes,
    int listingDirectories,
    int listingFlatKeys,
    int manyObjects) {

  static final int KIB = 1024;
  static final int MIB = 1024 * 1024;

  public BenchSizes {
    if (sequentialBytes < 1 || parquetBytes < 1 || parquetRowGroups < 1 || randomReads < 1 || randomReadBytes < 1
        || smallFiles < 1 || smallFileBytes < 1 || linkRangeBytes < 1 || listingDirectories < 1
        || listingFlatKeys < 0 || manyObjects < 1) {
      throw new IllegalArgumentException("every size must be at least 1: " + this);
    }
    if (randomReadBytes > sequentialBytes) {
      throw new IllegalArgumentException("a random read (" + randomReadBytes + " bytes) must fit in the object ("
          + sequentialBytes + " bytes)");
    }
  }

  /**
   * About three minutes on {@code s3-like}: 128 MiB sequential, a 48 MiB Parquet file, 16 random reads, 64 small
   * files; 10,000 objects for many-objects, which runs only when asked for.
   */
  public static BenchSizes defaults() {
    return new BenchSizes(128L * MIB, 48L * MIB, 4, 16, 64 * KIB, 64, 256 * KIB, 8 * MIB, 300, 10_000, 10_000);
  }

  /**
   * The reference sizes: 3.5 GiB sequential, a 917 MB Parquet file in 16 row groups, 200 random reads, 1,000 small
   * files, 100,000 objects for many-objects.
   */
  public static BenchSizes full() {
    return new BenchSizes(3584L * MIB, 917_000_000L, 16, 200, 64 * KIB, 1000, 256 * KIB, 8 * MIB, 2000, 100_000, 100_000);
  }

  public BenchSizes withListing(int directories, int flatKeys) {
    return new BenchSizes(sequentialBytes, parquetBytes, parquetRowGroups, randomReads, randomReadBytes, smallFiles,
        smallFileBytes, linkRangeBytes, directories, flatKeys, manyObjects);
  }

  /** Tiny, for the CI smoke test: seconds on the loopback link. */
  public static BenchSizes smoke() {
    return new BenchSizes(3 * MIB + 17, 2 * MIB, 2, 8, 16 * KIB, 12, 20 * KIB, 256 * KIB, 40, 1200, 40);
  }

  public BenchSizes withSequentialBytes(long bytes) {
    return new BenchSizes(bytes, parquetBytes, parquetRowGroups, randomReads, randomReadBytes, smallFiles,
        smallFileBytes, linkRangeBytes, listingDirectories, listingFlatKeys, manyObjects);
  }

  public BenchSizes withParquetBytes(long bytes) {
    return new BenchSizes(sequentialBytes, bytes, parquetRowGroups, randomReads, randomReadBytes, smallFiles,
        smallFileBytes, linkRangeBytes, listingDirectories, listingFlatKeys, manyObjects);
  }

  public BenchSizes withRandomReads(int reads) {
    return new BenchSizes(sequentialBytes, parquetBytes, parquetRowGroups, reads, randomReadBytes, smallFiles,
        smallFileBytes, linkRangeBytes, listingDirectories, listingFlatKeys, manyObjects);
  }

  public BenchSizes withSmallFiles(int files) {
    return new BenchSizes(sequentialBytes, parquetBytes, parquetRowGroups, randomReads, randomReadBytes, files,
        smallFileBytes, linkRangeBytes, listingDirectories, listingFlatKeys, manyObjects);
  }

  public BenchSizes withManyObjects(int objects) {
    return new BenchSizes(sequentialBytes, parquetBytes, parquetRowGroups, randomReads, randomReadBytes, smallFiles,
        smallFileBytes, linkRangeBytes, listingDirectories, listingFlatKeys, objects);
  }
}
