/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.store.ScriptedStore;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one question a read at a jump or a vectored range asks of the spans a stream holds ({@link
 * HeldSpans#copyHeld}): what they hold is copied, and what is left to fetch comes back with where the next
 * held span starts.
 */
class HeldSpansTest {
  private static final byte[] DATA = ScriptedStore.bytes(1 << 20);

  private final BufferPool pool = new BufferPool(4L << 20);
  private final ReadStatistics stats = ReadStatistics.global().child();
  private final HeldSpans spans = new HeldSpans();

  @AfterEach
  void release() {
    spans.releaseAll();
  }

  /** Holds the object's bytes {@code [start, start + len)} as a filled span. */
  private void hold(long start, int len) {
    Span s = new Span(start, pool.tryAcquire(BufferPool.sizeFor(len)), len, pool, stats);
    System.arraycopy(DATA, (int) start, s.buffer(), 0, len);
    s.filled();
    s.unpin();
    spans.add(s);
  }

  private static byte[] data(long start, long end) {
    return Arrays.copyOfRange(DATA, (int) start, (int) end);
  }

  @Test
  void whatASpanHoldsAtTheReadsStartIsCopiedAndTheRestIsLeftWithWhereTheNextSpanStarts() {
    hold(1000, 500);
    hold(5000, 100);
    byte[] dst = new byte[1000];

    HeldSpans.Unheld left = spans.copyHeld(1000, dst, 0, 1000);

    assertThat(left).isEqualTo(new HeldSpans.Unheld(1500, 2000, 5000));
    assertThat(Arrays.copyOf(dst, 500)).isEqualTo(data(1000, 1500));
  }

  @Test
  void heldBytesInsideTheReadLeaveTheWholeReadToFetchNotTwoParts() {
    hold(1200, 100);
    byte[] dst = new byte[1000];

    HeldSpans.Unheld left = spans.copyHeld(1000, dst, 0, 1000);

    assertThat(left).isEqualTo(new HeldSpans.Unheld(1000, 2000, Long.MAX_VALUE));
  }

  @Test
  void aReadTheSpansHoldWhole() {
    hold(1000, 300);
    hold(1300, 700);
    byte[] dst = new byte[1000];

    assertThat(spans.copyHeld(1000, dst, 0, 1000)).isNull();
    assertThat(dst).isEqualTo(data(1000, 2000));
  }
}
