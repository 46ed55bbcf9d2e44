/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;

/**
 * The fetch layer of one client over a {@link ScriptedStore}, as {@code Slipstream} builds it: the retry
 * layer (two retries 1 ms apart, no hedging, so that the requests a test sees are exactly the reads'),
 * the fetch executor, parallel parts (of at least 256 KiB), the block fetcher and a pool. For unit tests
 * of the layers above.
 */
public final class FetchRig implements AutoCloseable {
  public static final S3Location WHERE = new S3Location("b", "k");
  /** The ETag of the scripted object, as its server sends it. */
  public static final String ETAG = "\"v1\"";

  public final ScriptedStore store;
  public final SlipstreamConfig config;
  public final RangeReader ranges;
  public final FetchExecutor executor;
  public final ParallelParts parts;
  public final BlockFetcher fetcher;
  public final BufferPool pool;
  public final ReadStatistics stats = ReadStatistics.global().child();

  /** An object of {@code length} bytes ({@link ScriptedStore#bytes}), blocks of {@code blockSize}. */
  public FetchRig(int length, int blockSize, int threads) {
    this(new ScriptedStore(ScriptedStore.bytes(length), ETAG), blockSize, threads, 64L << 20);
  }

  public FetchRig(ScriptedStore store, int blockSize, int threads, long memory) {
    this.store = store;
    this.config = SlipstreamConfig.builder()
        .set("block.size", Integer.toString(blockSize))
        .set("retry.max", "2").set("retry.interval", "1ms").set("retry.interval.max", "1ms")
        .set("hedge.budget", "0")
        .set("fetch.part.min", "256K")
        .set("cache.disk.mode", "off")
        .build();
    this.ranges = new RangeReader(store, config);
    this.executor = new FetchExecutor(threads);
    this.parts = new ParallelParts(ranges, executor, config.fetchPartMin());
    this.fetcher = new BlockFetcher(store, ranges, executor);
    this.pool = new BufferPool(memory);
  }

  /** The object's bytes {@code [start, end)}. */
  public byte[] data(long start, long end) {
    return store.data(start, end);
  }

  /** A new open of the object, its length and ETag known (a listing's); S3 has not answered it yet. */
  public ObjectHandle open() {
    return new ObjectHandle(WHERE, store.data().length, true, ETAG, stats.child());
  }

  /** A new open S3 has answered (its HEAD): cached bytes may be served at once. */
  public ObjectHandle answered() {
    ObjectHandle h = open();
    h.answered(h.beforeRequest());
    return h;
  }

  /**
   * Block {@code index} of the grid of {@code block.size}, filled with the object's bytes in a buffer of
   * the pool, as a stream's fetch leaves it: only its owner's reference is held.
   */
  public Block filledBlock(long index) {
    int blockSize = config.blockSize();
    long length = store.data().length;
    long start = index * blockSize;
    int len = (int) Math.min(blockSize, length - start);
    byte[] buffer = pool.tryAcquire(BufferPool.blockBufferSize(length, blockSize, len));
    System.arraycopy(store.data(), (int) start, buffer, 0, len);
    Block b = new Block(index, start, buffer, len, false, pool, stats, 1);
    b.complete();
    b.unpin();
    return b;
  }

  /** Bytes {@code [start, start + len)} filled in a buffer of the pool: only its owner's reference is held. */
  public Span filledSpan(long start, int len) {
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    System.arraycopy(store.data(), (int) start, buffer, 0, len);
    Span s = new Span(start, buffer, len, pool, stats);
    s.filled();
    s.unpin();
    return s;
  }

  /** A token for one request of {@code why}. */
  public static CancelToken token(Purpose why) {
    return new CancelToken(() -> new IOException("cancelled: " + WHERE), why);
  }

  @Override
  public void close() {
    ranges.close();
    executor.shutdown();
  }
}
