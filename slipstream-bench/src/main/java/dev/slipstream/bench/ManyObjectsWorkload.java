/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code many-objects}: what a long-lived engine's client keeps for every distinct object it reads. One
 * client (one FileSystem, one Slipstream) reads 10,000 distinct small Parquet objects (100,000 with {@code
 * --full}; about 5 KB, two row groups each, see {@link ManyObjectsData}), as an engine does: a listing of
 * each directory of 1,000, then parquet-java opens each file with the status the listing gave and reads
 * every row group, on {@value #THREADS} threads (an executor's task slots). After every twentieth of the
 * objects the reads pause and the heap is measured after a full GC, less what the benchmark itself holds
 * (its logs, the link shaper's connection buffers: {@link Fixture#harnessHeap}): the curve and its slope
 * ({@link HeapCurve}), fitted from {@value #WARM_UP_PERCENT}% of the
 * objects on, are the report's heap figures.
 *
 * <p>What makes the readers comparable: Slipstream keeps block buffers in a memory pool bounded by {@code
 * memory.max} (at its default here): the memory cache keeps objects read in its free space, so the pool grows
 * with the objects read until it reaches its budget, growth bounded by design, not state kept per object. So
 * each sample also subtracts the bytes of buffers the reader's pool holds ({@link ReadSession#memoryPoolBytes},
 * 0 for S3A's streams, which have no such pool): what is left is everything else, the state kept per object
 * (answers, plans, listings, the cache's indexes) among it. Each reader runs once (no warm-up round): the
 * first {@value #WARM_UP_PERCENT}% of the objects are its warm-up.
 */
final class ManyObjectsWorkload implements Workload {
  static final String NAME = "many-objects";
  static final String PREFIX = "many/";
  static final int PER_DIRECTORY = 1000;
  static final int THREADS = 16;
  static final int SAMPLES = 20;
  static final int WARM_UP_PERCENT = 20;

  private ManyObjectsData data;
  private int objects;
  private int perDirectory;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return String.format(java.util.Locale.ROOT, "%,d distinct Parquet objects of %s (%d row groups, %d rows) read"
        + " through one client on %d threads, each directory of %,d listed, each object opened with its listed"
        + " status and read whole by parquet-java; heap after GC every twentieth of the objects, less the buffers"
        + " of Slipstream's memory pool (memory.max bounds them); one run per reader, whatever the rounds, its"
        + " first fifth the warm-up", objects, Report.binary(data.template().length),
        data.rowGroups(), data.rows(), THREADS, perDirectory);
  }

  @Override
  public boolean measuredOnce() {
    return true;
  }

  @Override
  public void upload(Fixture fixture) throws IOException {
    objects = fixture.sizes().manyObjects();
    perDirectory = perDirectory(objects);
    data = ManyObjectsData.generate(fixture.scratch(), fixture.seed());
    fixture.putMany(objects, this::key, data::object);
  }

  /** Objects per directory: 1,000, fewer so that there are at least ten directories. */
  static int perDirectory(int objects) {
    return Math.max(1, Math.min(PER_DIRECTORY, (objects + 9) / 10));
  }

  String key(int i) {
    return directory(i / perDirectory) + String.format("part-%06d.parquet", i);
  }

  static String directory(int d) {
    return PREFIX + String.format("d%04d/", d);
  }

  /** The object's number, from its key. */
  static int index(String key) {
    int at = key.lastIndexOf("part-");
    return Integer.parseInt(key.substring(at + 5, key.length() - ".parquet".length()));
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    int directories = (objects + perDirectory - 1) / perDirectory;
    long fitFrom = (long) Math.ceil(objects * WARM_UP_PERCENT / 100.0);
    AtomicReference<String> mismatch = new AtomicReference<>();
    long[] read = new long[1];
    List<Long> sampledObjects = new ArrayList<>();
    List<Long> sampledHeap = new ArrayList<>();
    return new Run() {
      @Override
      public long execute() throws IOException {
        sample(0);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long bytes = 0;
        int samples = 1;
        try {
          List<Future<?>> reads = new ArrayList<>();
          for (int d = 0; d < directories; d++) {
            for (FileRef f : session.list(directory(d))) {
              reads.add(pool.submit(() -> {
                readOne(f);
                return null;
              }));
              read[0]++;
              bytes += f.length();
              if (read[0] >= (long) objects * samples / SAMPLES) { // the reads pause for a sample
                for (Future<?> r : reads) {
                  await(r);
                }
                reads.clear();
                sample(read[0]);
                samples++;
              }
            }
          }
          for (Future<?> r : reads) {
            await(r);
          }
        } finally {
          pool.shutdownNow();
        }
        return bytes;
      }

      private void readOne(FileRef f) throws IOException {
        ParquetScan.Outcome o = ParquetScan.scan(session.parquetFile(f), session.parquetOptions(), null);
        String wrong = data.check(index(f.key()), o);
        if (wrong != null) {
          mismatch.compareAndSet(null, f.key() + ": " + wrong);
        }
      }

      private void sample(long objectsRead) {
        long harness = fixture.harnessHeap(); // first: it drops what the benchmark keeps for nothing
        sampledObjects.add(objectsRead);
        long heap = HeapCurve.heapAfterGc();
        sampledHeap.add(heap - harness - session.memoryPoolBytes());
      }

      @Override
      public String verify() {
        if (mismatch.get() != null) {
          return mismatch.get();
        }
        return read[0] == objects ? null : "listed and read " + read[0] + " objects, expected " + objects;
      }

      @Override
      public HeapCurve heapCurve() {
        return new HeapCurve(sampledObjects.stream().mapToLong(Long::longValue).toArray(),
            sampledHeap.stream().mapToLong(Long::longValue).toArray(), fitFrom);
      }
    };
  }

  private static void await(Future<?> f) throws IOException {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while reading the objects");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException re) {
        throw re;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IOException(c);
    }
  }
}
