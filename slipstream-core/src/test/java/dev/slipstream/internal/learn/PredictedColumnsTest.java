/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** What the client's predicted columns learn from a stream's close, and what they do not. */
class PredictedColumnsTest {
  static final long SCHEMA = 42;

  static BitSet columns(int... c) {
    BitSet b = new BitSet();
    for (int i : c) {
      b.set(i);
    }
    return b;
  }

  @Test
  void aColumnTwoFilesInARowReadWholeIsPredicted() {
    PredictedColumns p = new PredictedColumns(Duration.ofMinutes(5), Ticker.systemTicker());
    p.closed(SCHEMA, columns(1, 2), columns(1, 2), 0, 0);
    assertThat(p.predict(SCHEMA)).isNull();
    p.closed(SCHEMA, columns(1, 2), columns(1), 0, 0);
    assertThat(p.predict(SCHEMA)).isEqualTo(columns(1));
  }

  @Test
  void predictionsWhoseBytesAReaderLeftUnreadAreSwitchedOff() {
    PredictedColumns p = new PredictedColumns(Duration.ofMinutes(5), Ticker.systemTicker());
    p.closed(SCHEMA, columns(1), columns(1), 0, 0);
    p.closed(SCHEMA, columns(1), columns(1), 0, 0);
    for (int i = 0; i < PredictedColumns.JUDGED_AFTER; i++) {
      p.closed(SCHEMA, columns(1), columns(1), 100, 50);
    }
    assertThat(p.off(SCHEMA)).isTrue();
    assertThat(p.predict(SCHEMA)).isNull();
  }

  /**
   * A stream no reader read (opened ahead for a file never opened) fetched its predicted bytes for
   * nothing, but not because the prediction was wrong: it neither counts against the schema's predictions
   * nor changes them.
   */
  @Test
  void aStreamNoReaderReadSaysNothingOfTheColumns() {
    PredictedColumns p = new PredictedColumns(Duration.ofMinutes(5), Ticker.systemTicker());
    p.closed(SCHEMA, columns(1), columns(1), 0, 0);
    p.closed(SCHEMA, columns(1), columns(1), 0, 0);
    for (int i = 0; i < 2 * PredictedColumns.JUDGED_AFTER; i++) {
      p.closed(SCHEMA, new BitSet(), new BitSet(), 100, 100);
    }
    assertThat(p.off(SCHEMA)).isFalse();
    assertThat(p.predict(SCHEMA)).isEqualTo(columns(1));
  }
}
