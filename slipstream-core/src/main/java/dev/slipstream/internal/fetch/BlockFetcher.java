/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import dev.slipstream.S3Location;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fetches blocks on the shared executor, and serves direct reads and HEADs on the caller's thread,
 * all through the retry layer.
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

  /**
   * Fetches {@code block} in the background. The block must hold one pin for this fetch, which is
   * dropped when the fetch ends, however it ends. {@code token} stops it; {@code onEnd} runs last.
   */
  public void submit(ObjectHandle h, Block block, boolean urgent, CancelToken token, Runnable onEnd) {
    BlockTask task = new BlockTask(h, block, urgent, token, onEnd);
    block.onCancel(task::cancel, () -> executor.promote(task));
    try {
      executor.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      task.abandon(new IOException("the Slipstream client is closed: cannot read " + h.location()));
    }
  }

  /** Reads {@code [position, position + len)} straight into the caller's array, on this thread. */
  public void readDirect(ObjectHandle h, long position, byte[] dst, int off, int len, CancelToken token)
      throws IOException {
    h.stats().increment(Counter.DIRECT_READS);
    ranges.read(h, position, position + len, dst, off, token);
  }

  /** HEAD with the same retry rules as GETs. */
  public ObjectStore.ObjectMetadata head(S3Location location, dev.slipstream.ReadStatistics stats,
      int retryMax, CancelToken token) throws IOException {
    int retries = 0;
    while (true) {
      try {
        stats.increment(Counter.HEAD_REQUESTS);
        return store.head(location);
      } catch (TransientStoreException e) {
        if (retries >= retryMax) {
          throw new IOException("giving up on HEAD " + location + " after " + (retries + 1) + " attempts: "
              + e.getMessage(), e);
        }
        retries++;
        stats.retry(e.retryCause());
        token.sleep(ranges.backoffMillis(retries));
      }
    }
  }

  private final class BlockTask extends FetchExecutor.Task {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int ENDED = 2;

    private final ObjectHandle h;
    private final Block block;
    private final CancelToken token;
    private final Runnable onEnd;
    private final AtomicInteger state = new AtomicInteger(QUEUED);

    BlockTask(ObjectHandle h, Block block, boolean urgent, CancelToken token, Runnable onEnd) {
      super(urgent);
      this.h = h;
      this.block = block;
      this.token = token;
      this.onEnd = onEnd;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(QUEUED, RUNNING)) {
        return;
      }
      try {
        ranges.read(h, block.start(), block.end(), block.buffer(), 0, token);
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
}
