/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.internal.util.AccessGate;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The block fetcher over a scripted store: the work it runs on the fetch executor, how a block's fetch
 * ends (filled, failed, cancelled), and the requests it makes itself: the access check's 1-byte GET, HEAD.
 */
class BlockFetcherTest {
  private static final int BLOCK = 4096;

  private final FetchRig rig = new FetchRig(4 * BLOCK, BLOCK, 1);
  private final ObjectHandle h = rig.open();

  @AfterEach
  void close() {
    rig.close();
  }

  /** A block being fetched: the owner's reference and the fetch's pin. */
  private Block fetching(long index) {
    return new Block(index, index * BLOCK, rig.pool.tryAcquire(BLOCK), BLOCK, false, rig.pool, rig.stats, 1);
  }

  /** What a stream's chain would do with S3 alone: the block's range in one GET. */
  private BlockFetcher.BlockWork fromS3() {
    return (b, t) -> rig.ranges.read(h, b.start(), b.end(), b.buffer(), 0, t);
  }

  @Test
  void aBlockIsFilledOnAFetchThreadThenItsPinDroppedAndTheEndReported() throws Exception {
    Block b = fetching(2);
    CountDownLatch ended = new CountDownLatch(1);

    rig.fetcher.submit(h, b, fromS3(), true, FetchRig.token(Purpose.BLOCK), ended::countDown);

    assertThat(ended.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(b.isReady()).isTrue();
    assertThat(b.awaitFetchEnd(5000)).isTrue();
    assertThat(b.buffer()).isEqualTo(rig.data(2 * BLOCK, 3 * BLOCK));
    assertThat(rig.store.ranges()).containsExactly((2 * BLOCK) + "-" + (3 * BLOCK));
    assertThat(b.claimDiskWrite()).isTrue(); // the fetcher marks nothing: where bytes came from is the chain's
    b.releaseOwner();
  }

  @Test
  void aFailedFetchFailsTheBlockWithItsError() throws Exception {
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    Block b = fetching(0);
    CountDownLatch ended = new CountDownLatch(1);

    rig.fetcher.submit(h, b, fromS3(), true, FetchRig.token(Purpose.BLOCK), ended::countDown);

    assertThat(ended.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(b.state()).isEqualTo(Block.State.FAILED);
    assertThat(b.failure()).isInstanceOf(AccessDeniedException.class);
    assertThat(rig.store.ranges()).containsExactly("0-4096");
    b.releaseOwner();
  }

  @Test
  void aFetchCancelledBeforeItStartsNeverRunsAndFailsWithItsTokensError() throws Exception {
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // the one fetch thread is taken
    CompletableFuture<Void> blocker = rig.fetcher.submitRead(true, FetchRig.token(Purpose.RANGE), () -> {
      busy.countDown();
      try {
        release.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, () -> { });
    assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
    Block b = fetching(1);
    AtomicBoolean ran = new AtomicBoolean();
    CountDownLatch ended = new CountDownLatch(1);
    CancelToken token = FetchRig.token(Purpose.PREFETCH);

    rig.fetcher.submit(h, b, (blk, t) -> ran.set(true), false, token, ended::countDown);
    b.cancel();
    release.countDown();

    assertThat(ended.await(5, TimeUnit.SECONDS)).isTrue();
    blocker.get(5, TimeUnit.SECONDS);
    assertThat(ran).isFalse();
    assertThat(b.state()).isEqualTo(Block.State.FAILED);
    assertThat(b.failure()).hasMessage("cancelled: s3://b/k");
    assertThat(rig.store.ranges()).isEmpty();
    b.releaseOwner();
  }

  @Test
  void aReadWhoseTokenIsCancelledFailsAtOnceWithoutRunning() throws Exception {
    CancelToken token = FetchRig.token(Purpose.RANGE);
    token.cancel();
    AtomicBoolean ran = new AtomicBoolean();
    CountDownLatch ended = new CountDownLatch(1);

    CompletableFuture<Void> read = rig.fetcher.submitRead(true, token, () -> ran.set(true), ended::countDown);

    assertThatThrownBy(() -> read.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IOException.class)
        .hasMessageContaining("cancelled: s3://b/k");
    assertThat(ended.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).isFalse();
  }

  @Test
  void theAccessGateOfAnOpenS3HasNotAnsweredIsOneConditionalOneByteGetForAllItsReaders() throws IOException {
    AccessGate gate = rig.fetcher.accessGate(h);

    gate.start();
    gate.await();
    rig.fetcher.accessGate(h).await();

    assertThat(rig.store.ranges()).containsExactly("0-1");
    assertThat(rig.store.gets().get(0).ifMatch()).isEqualTo(ETag.parse("v1"));
  }

  @Test
  void theAccessGateOfAnOpenS3AnsweredSendsNothing() throws IOException {
    rig.fetcher.accessGate(rig.answered()).await();

    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void s3sRefusalClosesTheGateForTheWholeOpen() {
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));

    assertThatThrownBy(() -> rig.fetcher.accessGate(h).await()).isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(() -> rig.fetcher.accessGate(h).await()).isInstanceOf(AccessDeniedException.class);

    assertThat(rig.store.ranges()).containsExactly("0-1");
  }

  @Test
  void aHeadIsOneRequestCounted() throws IOException {
    ObjectStore.ObjectMetadata m = rig.fetcher.head(FetchRig.WHERE, h.stats(), FetchRig.token(Purpose.OPEN));

    assertThat(m.length()).isEqualTo(4 * BLOCK);
    assertThat(m.etag()).isEqualTo(ETag.parse("v1"));
    assertThat(rig.store.heads()).isEqualTo(1);
    assertThat(rig.store.ranges()).isEmpty();
    assertThat(h.stats().get(Counter.HEAD_REQUESTS)).isEqualTo(1);
  }
}
