/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.source.Piece;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.source.ScriptedTier;
import dev.slipstream.internal.store.ScriptedStore;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous ranges over a scripted store: the GETs each sends (one per range, or equal parts of at
 * most {@link RangeThrough#PART}, none for what the stream or a tier holds), and the bytes it returns.
 */
class VectoredReadsTest {
  private static final int MIB = 1 << 20;
  private static final int LENGTH = 3 * MIB;

  private final byte[] data = ScriptedStore.bytes(LENGTH);
  private final ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
  private final StreamRig rig = new StreamRig(new FetchRig(new ScriptedStore(data, FetchRig.ETAG), MIB, 4,
      64L * MIB), 4, disk);

  @AfterEach
  void close() {
    rig.close();
  }

  private byte[] read(long position, int len) throws Exception {
    byte[] dst = new byte[len];
    rig.vectored.read(position, dst, 0, len).get(5, TimeUnit.SECONDS);
    return dst;
  }

  /** Reads {@code len} bytes at {@code position} as one range, and checks they are the object's. */
  private void readsTheObjectsBytes(long position, int len) throws Exception {
    assertThat(read(position, len)).isEqualTo(rig.data(position, position + len));
  }

  @Test
  void aRangeNothingHoldsIsOneGetOfExactlyItsBytesThenOfferedToTheTiers() throws Exception {
    readsTheObjectsBytes(200, 5000);

    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(200, 5200));
    assertThat(disk.asked()).startsWith("disk read range 200+5000 [0, 5000)"); // a kept range is asked for first
    assertThat(disk.kept()).containsExactly(Piece.range(200, 5000));
    assertThat(rig.h.stats().get(Counter.BYTES_READ)).isEqualTo(5000);
  }

  @Test
  void aRangeATierKeptComesFromItWithNoRequest() throws Exception {
    disk.holding(Piece.range(100, 5000));

    readsTheObjectsBytes(100, 5000);

    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aRangeLargerThanAPartIsFetchedInEqualPartsOfAtMostAPart() throws Exception {
    int len = 5 * MIB / 2;
    int part = (len + 2) / 3;

    readsTheObjectsBytes(0, len);

    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(StreamRig.get(0, part),
        StreamRig.get(part, 2L * part), StreamRig.get(2L * part, len));
  }

  @Test
  void whatTheStreamHoldsAtOneEndIsCopiedAndOnlyTheRestFetched() throws Exception {
    rig.spans.add(rig.fetch.filledSpan(0, 2000));

    readsTheObjectsBytes(1000, 3000);

    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(2000, 4000));
  }

  @Test
  void whatTheStreamHoldsInTheMiddleWouldCutTheRangeInTwoItIsFetchedWhole() throws Exception {
    rig.spans.add(rig.fetch.filledSpan(2000, 1000));

    readsTheObjectsBytes(1000, 4000);

    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(1000, 5000));
  }

  @Test
  void aRangeTheStreamHoldsWholeSendsNothing() throws Exception {
    rig.spans.add(rig.fetch.filledSpan(0, 3000));
    rig.spans.add(rig.fetch.filledSpan(3000, 3000));

    readsTheObjectsBytes(1000, 4000);

    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(disk.asked()).isEmpty();
  }

  @Test
  void afterCloseARangeFailsWithTheClosedErrorAndSendsNothing() {
    rig.requests.close();

    assertThatThrownBy(() -> read(0, 100)).isInstanceOf(ExecutionException.class)
        .hasMessageContaining("stream closed: s3://b/k");
    assertThat(rig.fetch.store.ranges()).isEmpty();
  }
}
