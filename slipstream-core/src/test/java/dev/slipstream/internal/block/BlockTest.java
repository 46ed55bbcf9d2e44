/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A block's fetch ends once, in one state; spans are filled once; both give their buffer back. */
@Timeout(30)
class BlockTest {
  private static final int SIZE = 4096;

  @Test
  void aBlockIsFetchingThenFilledOnce() throws IOException {
    BufferPool pool = new BufferPool(4L * SIZE);
    Block b = new Block(3, 3L * SIZE, pool.acquire(SIZE), SIZE, false, pool, ReadStatistics.global().child(), 1);
    assertThat(b.state()).isEqualTo(Block.State.FETCHING);
    assertThat(b.isDone()).isFalse();
    b.complete();
    assertThat(b.state()).isEqualTo(Block.State.FILLED);
    assertThat(b.isReady()).isTrue();
    assertThat(b.await()).isZero();
    // a second ending is a bug: the assertion catches it (tests run with -ea), the state stays
    assertThatThrownBy(() -> b.fail(new IOException("late"))).isInstanceOf(AssertionError.class)
        .hasMessageContaining("ended twice");
    assertThat(b.state()).isEqualTo(Block.State.FILLED);
    b.unpin();
    b.releaseOwner();
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void aFailedBlockRethrowsItsFailureToEveryReader() throws IOException {
    BufferPool pool = new BufferPool(4L * SIZE);
    Block b = new Block(0, 0, pool.acquire(SIZE), SIZE, false, pool, ReadStatistics.global().child(), 1);
    IOException cause = new IOException("503 five times");
    b.fail(cause);
    assertThat(b.state()).isEqualTo(Block.State.FAILED);
    assertThat(b.isDone()).isTrue();
    assertThat(b.isReady()).isFalse();
    assertThatThrownBy(b::await).isSameAs(cause);
    assertThatThrownBy(b::await).isSameAs(cause);
    b.unpin();
    b.releaseOwner();
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void bytesOutsideTheGridAreASpanNotABlock() {
    BufferPool pool = new BufferPool(4L * SIZE);
    assertThatThrownBy(() -> new Block(-1, 0, new byte[SIZE], SIZE, false, pool, ReadStatistics.global().child(), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Span");
  }

  @Test
  void aPrefetchedBlockDroppedUnreadIsCountedWasted() throws IOException {
    BufferPool pool = new BufferPool(4L * SIZE);
    ReadStatistics stats = ReadStatistics.global().child();
    Block unread = new Block(0, 0, pool.acquire(SIZE), SIZE, true, pool, stats, 1);
    Block read = new Block(1, SIZE, pool.acquire(SIZE), SIZE, true, pool, stats, 1);
    for (Block b : new Block[] {unread, read}) {
      b.complete();
      b.unpin();
    }
    read.markUsed();
    unread.releaseOwner();
    read.releaseOwner();
    assertThat(stats.get(Counter.PREFETCH_WASTED)).isEqualTo(1);
    assertThat(stats.get(Counter.PREFETCH_USED)).isEqualTo(1);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void aFilledSpanThatOnlyItsOwnerHoldsIsEvictedForAWaitingReader() throws IOException {
    BufferPool pool = new BufferPool(SIZE);
    Span span = new Span(100, pool.acquire(SIZE), SIZE, pool, ReadStatistics.global().child());
    assertThat(span.isReady()).isFalse();
    span.filled();
    assertThat(span.isReady()).isTrue();
    span.unpin(); // the filler is done: only the owner holds it now
    // The budget is spent: a reader's acquire takes the span's buffer instead of waiting forever.
    byte[] taken = pool.acquire(SIZE);
    assertThat(taken).hasSize(SIZE);
    assertThat(span.tryPin()).isFalse();
    pool.release(taken);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void aPinnedSpanKeepsItsBufferUntilTheLastPinGoes() throws IOException {
    BufferPool pool = new BufferPool(2L * SIZE);
    Span span = new Span(0, pool.acquire(SIZE), SIZE, pool, ReadStatistics.global().child());
    span.filled();
    assertThat(span.tryPin()).isTrue(); // a reader
    span.unpin(); // the filler
    span.releaseOwner();
    assertThat(pool.inUseBytes()).isEqualTo(SIZE);
    span.unpin(); // the reader
    assertThat(pool.inUseBytes()).isZero();
  }
}
