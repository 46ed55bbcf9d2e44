/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** S3 as the last source, over a scripted store: the GETs each read sends, and the bytes it returns. */
class S3SourceTest {
  private static final int MIB = 1 << 20;

  private final FetchRig rig = new FetchRig(2 * MIB, MIB, 4);
  private final S3Source s3 = new S3Source(rig.ranges, rig.parts);
  private final ObjectHandle h = rig.open();

  @AfterEach
  void close() {
    rig.close();
  }

  @Test
  void aBlockNotInPartsIsOneGetOfExactlyItsRangeOfTheVersionOpened() throws IOException {
    byte[] dst = new byte[1100];

    s3.read(h, 5000, dst, 100, 1000, FetchRig.token(Purpose.BLOCK), false);

    assertThat(rig.store.ranges()).containsExactly("5000-6000");
    assertThat(rig.store.gets().get(0).ifMatch()).isEqualTo(ETag.parse("v1"));
    assertThat(dst).startsWith(new byte[100]).endsWith(rig.data(5000, 6000));
    assertThat(h.stats().get(Counter.GET_REQUESTS)).isEqualTo(1);
    assertThat(h.stats().get(Counter.DIRECT_READS)).isZero();
  }

  @Test
  void aBlockInPartsIsSplitAcrossTheIdleFetchThreads() throws IOException {
    byte[] dst = new byte[MIB];

    s3.read(h, MIB, dst, 0, MIB, FetchRig.token(Purpose.BLOCK), true);

    // 4 threads, no other block read: 4 parts, none under fetch.part.min (256 KiB)
    int part = MIB / 4;
    assertThat(rig.store.ranges()).containsExactlyInAnyOrder(
        (MIB) + "-" + (MIB + part), (MIB + part) + "-" + (MIB + 2 * part),
        (MIB + 2 * part) + "-" + (MIB + 3 * part), (MIB + 3 * part) + "-" + (2 * MIB));
    assertThat(dst).isEqualTo(rig.data(MIB, 2 * MIB));
    assertThat(h.stats().get(Counter.BLOCKS_IN_PARTS)).isEqualTo(1);
  }

  @Test
  void aReadACallerWaitsForIsOneGetCountedAsADirectRead() throws IOException {
    byte[] dst = new byte[300];

    s3.readNow(h, 7, dst, 0, 300, FetchRig.token(Purpose.RANGE));

    assertThat(rig.store.ranges()).containsExactly("7-307");
    assertThat(dst).isEqualTo(rig.data(7, 307));
    assertThat(h.stats().get(Counter.DIRECT_READS)).isEqualTo(1);
  }

  @Test
  void aTransientFailureIsRetriedForTheMissingBytesOnly() throws IOException {
    rig.store.then(rig.store.serve(400, true));
    byte[] dst = new byte[1000];

    s3.readNow(h, 0, dst, 0, 1000, FetchRig.token(Purpose.RANGE));

    assertThat(rig.store.ranges()).containsExactly("0-1000", "400-1000");
    assertThat(dst).isEqualTo(rig.data(0, 1000));
  }

  @Test
  void itsRefusalIsTheReadsFailureAtOnce() {
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    byte[] dst = new byte[1000];

    assertThatThrownBy(() -> s3.read(h, 0, dst, 0, 1000, FetchRig.token(Purpose.BLOCK), false))
        .isInstanceOf(AccessDeniedException.class);
    assertThat(rig.store.ranges()).containsExactly("0-1000"); // no retry
    assertThat(dst).containsOnly(0);
  }
}
