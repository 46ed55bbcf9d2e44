/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import dev.slipstream.S3Location;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.util.AccessGate;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a client's fetches on the shared executor: block fetches (what fills a block is the caller's
 * {@link BlockWork}: the stream's chain of sources), asynchronous range reads and the access checks of
 * the disk cache; and HEADs, on the caller's thread, through the retry rules of the retry layer.
 */
public final class BlockFetcher {
  private final ObjectStore store;
  private final RangeReader ranges;
  private final FetchExecutor executor;

  public BlockFetcher(ObjectStore store, RangeReader ranges, FetchExecutor executor) {
    this.store = store;
    this.ranges = ranges;
    this.executor = executor;
  }

  /** What a block fetch does on a fetch thread: fills the block's buffer. */
  @FunctionalInterface
  public interface BlockWork {
    void fill(Block block, CancelToken token) throws IOException;
  }

  /**
   * Fetches {@code block} of {@code h} in the background with {@code work}. The block must hold one pin
   * for this fetch, which is dropped when the fetch ends, however it ends. {@code token} stops it;
   * {@code onEnd} runs last.
   */
  public void submit(ObjectHandle h, Block block, BlockWork work, boolean urgent, CancelToken token, Runnable onEnd) {
    BlockTask task = new BlockTask(block, work, urgent, token, onEnd);
    block.onCancel(task::cancel, () -> executor.promote(task));
    try {
      executor.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      task.abandon(new IOException("the Slipstream client is closed: cannot read " + h.location()));
    }
  }

  /**
   * Runs {@code work} on the fetch executor (ahead of prefetches if {@code urgent}); the future
   * completes when it ends, and {@link QueuedRead#promote} moves a prefetch still waiting for a thread
   * ahead of every prefetch, as {@link Block#promote} does a block's.
   * {@code work} must not wait for other fetches (a fetch thread never waits for another). A token
   * cancelled before it starts makes it fail at once; {@code onEnd} runs last, however it ends.
   */
  public QueuedRead submitRead(boolean urgent, CancelToken token, IoWork work, Runnable onEnd) {
    ReadTask task = new ReadTask(urgent, token, work, onEnd);
    try {
      executor.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      task.abandon(new IOException("the Slipstream client is closed"));
    }
    return task.result;
  }

  /** Threads of the fetch executor that would start a read submitted now ({@link FetchExecutor#idleThreads}). */
  public int idleThreads() {
    return executor.idleThreads();
  }

  /** Tasks of the fetch executor waiting for a thread. */
  public int queued() {
    return executor.queued();
  }

  /** A read submitted with {@link #submitRead}: completes when it ends. */
  public static final class QueuedRead extends java.util.concurrent.CompletableFuture<Void> {
    private final Runnable promoter;

    private QueuedRead(Runnable promoter) {
      this.promoter = promoter;
    }

    /** A caller now waits for this read: if it still waits for a thread, it goes ahead of every prefetch. */
    public void promote() {
      if (!isDone()) {
        promoter.run();
      }
    }
  }

  /**
   * The gate a disk-cache read of {@code h} passes before its bytes are served: S3 must have answered
   * this open (see {@link AccessCheck}); until it has, one conditional 1-byte GET is sent alongside the
   * disk read, on the fetch executor (or by the first reader that waits for it).
   */
  public AccessGate accessGate(ObjectHandle h) {
    return new AccessGate() {
      private AccessCheck.Probe probe;
      private boolean started;

      @Override
      public void start() {
        if (!started) {
          started = true;
          probe = h.access().start(() -> probe(h), BlockFetcher.this::submitProbe);
        }
      }

      @Override
      public void await() throws IOException {
        start();
        if (probe != null) {
          probe.await();
        }
      }
    };
  }

  /** The conditional 1-byte GET of an access check: {@code If-Match} the open's ETag, through the retry layer. */
  private void probe(ObjectHandle h) throws IOException {
    ranges.read(h, 0, 1, new byte[1], 0, new CancelToken(() -> new IOException("cancelled: access check of "
        + h.location()), Purpose.ACCESS_CHECK));
  }

  private void submitProbe(AccessCheck.Probe p) {
    try {
      executor.execute(new FetchExecutor.Task(true) {
        @Override
        public void run() {
          p.run();
        }

        @Override
        protected void abandon(IOException why) {
          // the reader waiting for it runs it
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the client is closing: the reader waiting for it runs it, and gets the closed error
    }
  }

  /** The first GET of an object opened with no length, in place of its HEAD: see {@link FirstGet}. */
  public FirstGet.Got first(ObjectHandle h, int max, CancelToken token) throws IOException {
    return ranges.first(h, max, token);
  }

  /** HEAD with the same retry rules as GETs; {@code token}, once cancelled, ends it with its closed error. */
  public ObjectStore.ObjectMetadata head(S3Location location, dev.slipstream.ReadStatistics stats,
      CancelToken token) throws IOException {
    return ranges.retrier().run(() -> "on HEAD " + location, stats, token, () -> {
      stats.increment(Counter.HEAD_REQUESTS);
      long t0 = System.nanoTime();
      Throwable failure = null;
      try {
        ObjectStore.ObjectMetadata m = store.head(location);
        stats.record(dev.slipstream.Latency.HEAD, System.nanoTime() - t0);
        return m;
      } catch (IOException | RuntimeException e) {
        failure = e;
        throw e;
      } finally {
        if (RequestLog.on()) {
          RequestLog.head(location, System.nanoTime() - t0, token.purpose(), failure);
        }
      }
    });
  }

  private final class BlockTask extends FetchExecutor.Task {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int ENDED = 2;

    private final Block block;
    private final BlockWork work;
    private final CancelToken token;
    private final Runnable onEnd;
    private final AtomicInteger state = new AtomicInteger(QUEUED);

    BlockTask(Block block, BlockWork work, boolean urgent, CancelToken token, Runnable onEnd) {
      super(urgent);
      this.block = block;
      this.work = work;
      this.token = token;
      this.onEnd = onEnd;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(QUEUED, RUNNING)) {
        return;
      }
      try {
        work.fill(block, token);
        block.complete();
      } catch (Throwable t) {
        block.fail(t);
      } finally {
        state.set(ENDED);
        end();
      }
    }

    private void end() {
      block.unpin();
      block.fetchEnded();
      onEnd.run();
    }

    /** Takes the task out of the queue if it has not started, or aborts its request if it has. */
    void cancel() {
      token.cancel();
      if (state.compareAndSet(QUEUED, ENDED)) {
        executor.remove(this);
        block.fail(token.closedError());
        end();
      }
    }

    @Override
    protected void abandon(IOException why) {
      if (state.compareAndSet(QUEUED, ENDED)) {
        block.fail(why);
        end();
      }
    }
  }

  private final class ReadTask extends FetchExecutor.Task {
    private final CancelToken token;
    private final IoWork work;
    private final Runnable onEnd;
    private final QueuedRead result = new QueuedRead(() -> executor.promote(this));
    private final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();

    ReadTask(boolean urgent, CancelToken token, IoWork work, Runnable onEnd) {
      super(urgent);
      this.token = token;
      this.work = work;
      this.onEnd = onEnd;
    }

    @Override
    public void run() {
      if (!started.compareAndSet(false, true)) {
        return;
      }
      try {
        token.check();
        work.run();
        result.complete(null);
      } catch (Throwable t) {
        result.completeExceptionally(t);
      } finally {
        onEnd.run();
      }
    }

    @Override
    protected void abandon(IOException why) {
      if (started.compareAndSet(false, true)) {
        result.completeExceptionally(why);
        onEnd.run();
      }
    }
  }
}
