/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The range reader against an in-memory store that answers each GET as its script says: no server. */
class RangeReaderTest {
  private static final byte[] DATA = ScriptedStore.bytes(1000);

  private final RangeReaderRig rig = new RangeReaderRig(new ScriptedStore(DATA, "v1"));
  private final ScriptedStore store = rig.store;
  private final ReadStatistics stats = rig.stats;

  @AfterEach
  void closeReader() {
    rig.close();
  }

  /** The response as served: its bytes run out (EOF) or fail (reset) after {@code cut} bytes, if not -1. */
  private ScriptedStore.Answer serve(int cut, boolean reset) {
    return store.serve(cut, reset);
  }

  private ScriptedStore.Answer whole() {
    return store.whole();
  }

  @Test
  void shortBodyResumesAtTheLastByteReceived() throws IOException {
    store.then(serve(200, false)).then(whole());

    byte[] got = rig.read(100, 600);

    assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600", "300-600");
    assertThat(store.gets()).allSatisfy(g -> assertThat(g.ifMatch()).isEqualTo(ETag.parse("v1")));
    assertThat(stats.retries(RetryCause.TRUNCATED)).isEqualTo(1);
    assertThat(stats.get(Counter.GET_REQUESTS)).isEqualTo(2);
    assertThat(stats.get(Counter.BYTES_FETCHED)).isEqualTo(500);
  }

  @Test
  void connectionResetMidBodyIsRetriedAndResumes() throws IOException {
    store.then(serve(250, true)).then(whole());

    byte[] got = rig.read(0, 1000);

    assertThat(got).isEqualTo(DATA);
    assertThat(store.ranges()).containsExactly("0-1000", "250-1000");
    assertThat(stats.retries(RetryCause.CONNECTION_RESET)).isEqualTo(1);
    assertThat(store.responses().get(0).aborted()).isTrue(); // the broken connection is dropped, not pooled
    assertThat(store.responses().get(1).closed()).isTrue(); // the full one goes back to the pool
  }

  @Test
  void oneGetFillsPiecesEndToEndAndARetryResumesInThePieceWhereTheBodyBroke() throws IOException {
    store.then(serve(250, true)).then(whole());
    List<byte[]> pieces = List.of(new byte[192], new byte[192], new byte[192], new byte[100]);

    rig.reader.read(rig.handle, 100, 776, Destination.pieces(pieces, 192), rig.token);

    for (int i = 0; i < pieces.size(); i++) {
      int from = 100 + 192 * i;
      assertThat(pieces.get(i)).as("piece " + i)
          .isEqualTo(Arrays.copyOfRange(DATA, from, Math.min(776, from + 192)));
    }
    // one GET for all four pieces; the retry asks only for what the reset left, from inside piece 1
    assertThat(store.ranges()).containsExactly("100-776", "350-776");
    assertThat(stats.get(Counter.BYTES_FETCHED)).isEqualTo(676);
  }

  @Test
  void contentRangeNotMatchingTheRequestIsRefusedWithoutRetry() {
    store.then((start, end) -> new ScriptedStore.Response(206, "bytes 0-499/1000", 500,
        Arrays.copyOfRange(DATA, 0, 500), -1, false, ETag.parse("v1"))).then(whole());
    byte[] dst = new byte[500];

    assertThatThrownBy(() -> rig.reader.read(rig.handle, 100, 600, dst, 0, rig.token))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageContaining("GET s3://b/k bytes 100-599")
        .hasMessageContaining("another range than the one asked for");
    assertThat(store.ranges()).containsExactly("100-600");
    assertThat(store.responses().get(0).aborted()).isTrue();
    assertThat(dst).containsOnly(0); // not a byte of it used
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void givingUpNamesTheBytesStillMissingAndTheAttempts() {
    store.then(serve(200, false)).then(serve(100, false)).then(serve(50, false)).then(whole());

    assertThatThrownBy(() -> rig.read(100, 600))
        .isExactlyInstanceOf(IOException.class)
        .hasMessageStartingWith("giving up on s3://b/k bytes 450-599 after 3 attempts: body of s3://b/k bytes"
            + " 400-599 ended after 50 of 200 bytes");
    assertThat(store.ranges()).containsExactly("100-600", "300-600", "400-600");
    assertThat(stats.retries(RetryCause.TRUNCATED)).isEqualTo(2);
  }

  @Test
  void aCancelledTokenEndsTheReadWithItsErrorBeforeAnyRequest() {
    rig.token.cancel();
    store.then(whole());

    assertThatThrownBy(() -> rig.read(0, 10)).hasMessage("closed: s3://b/k");
    assertThat(store.ranges()).isEmpty();
  }

  @Test
  void aClosedClientEndsTheReadWithTheClosedClientError() {
    rig.reader.close();
    store.then(whole());

    assertThatThrownBy(() -> rig.read(0, 10)).hasMessage("the Slipstream client is closed: cannot read s3://b/k");
    assertThat(store.ranges()).isEmpty();
  }
}
