/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.HeapRegions;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.source.Piece;
import dev.slipstream.internal.source.Tier;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller interrupted while a part of its columnar extent is still running lets go of the span the part
 * writes into; the span's buffer must stay out of the pool until the part has ended (issue 42, item 7). A
 * part blocked in a tier (as in its access check, which no cancel stops) and then successful copies its
 * bytes into that buffer: recycled sooner, they would land in memory another stream now uses.
 */
class InterruptedSpanTest {
  private static final int MIB = 1 << 20;
  private static final byte MARK = 0x5A;

  /** A tier that holds every range, but answers a lookup only once released, then writes {@link #MARK}s. */
  private static final class StallingTier implements Tier {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch written = new CountDownLatch(1);

    @Override
    public Piece.Origin origin() {
      return Piece.Origin.DISK;
    }

    @Override
    public boolean read(Piece piece, int from, byte[] dst, int off, int n) {
      if (piece.isBlock()) {
        return false;
      }
      entered.countDown();
      try {
        if (!release.await(10, TimeUnit.SECONDS)) {
          return false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      Arrays.fill(dst, off, off + n, MARK);
      written.countDown();
      return true;
    }

    @Override
    public void keep(Piece piece, PooledBytes data) {}

    @Override
    public boolean keeps(Piece piece) {
      return !piece.isBlock();
    }
  }

  private final StallingTier tier = new StallingTier();
  private final StreamRig rig = new StreamRig(new FetchRig(new ScriptedStore(ScriptedStore.bytes(8 * MIB),
      FetchRig.ETAG), 4 * MIB, 4, 64L * MIB), 4, tier);

  @AfterEach
  void close() {
    tier.release.countDown();
    rig.close();
  }

  @Test
  void aPartStillRunningKeepsTheSpansBufferOutOfThePool() throws Exception {
    int ahead = 2 * MIB; // a run in order: the read's extent is 2 MiB and more, fetched in parts
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        rig.jumps.readRange(0, new byte[100], 0, 100, new ReadPlanner.Decision(ReadPlanner.Kind.EXACT, ahead, false, true),
            false);
        outcome.complete(null);
      } catch (Throwable t) {
        outcome.complete(t);
      }
    }, "interrupted-reader");
    reader.start();
    assertThat(tier.entered.await(10, TimeUnit.SECONDS)).as("the extent's lookup reached the tier").isTrue();
    reader.interrupt();
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    reader.join();

    // Memory of the span's size, as another stream would take it now.
    byte[] other = rig.fetch.pool.tryAcquire(BufferPool.sizeFor(100 + ahead));
    Arrays.fill(other, (byte) 0x11);
    tier.release.countDown();
    assertThat(tier.written.await(10, TimeUnit.SECONDS)).isTrue();
    rig.requests.awaitEnd();
    long otherCost = HeapRegions.current().cost(other.length); // what the pool counts for it
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (rig.fetch.pool.inUseBytes() > otherCost && System.nanoTime() < deadline) {
      Thread.sleep(1); // the part's pin is dropped just after the range's request ends
    }

    assertThat(countOf(other, MARK)).as("bytes the late part wrote into another stream's memory").isZero();
    assertThat(rig.fetch.pool.inUseBytes()).as("the span's buffer went back once the part ended")
        .isEqualTo(otherCost);
    rig.fetch.pool.release(other);
  }

  private static int countOf(byte[] b, byte v) {
    int n = 0;
    for (byte x : b) {
      if (x == v) {
        n++;
      }
    }
    return n;
  }
}
