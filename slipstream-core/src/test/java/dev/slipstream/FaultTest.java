/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Network faults, scripted and random, through the link shaper: every byte right, every fault counted. */
@Timeout(300)
class FaultTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "faults";
  static final long SIZE = 16L * 256 * 1024 + 999; // 16 blocks of 256 KiB and a bit

  LinkShaper shaper;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "data", 42, SIZE);
  }

  @AfterEach
  void stopShaper() {
    if (shaper != null) {
      shaper.close();
    }
  }

  private Slipstream client(LinkProfile profile, String... extra) {
    shaper = LinkShaper.start(S3.server().endpoint(), profile, 7);
    SlipstreamConfig.Builder b = TestClients.config(shaper.endpoint())
        .set("block.size", "256K").set("memory.max", "8M")
        .set("read.stall.timeout", "1500ms").set("retry.interval", "10ms").set("retry.interval.max", "100ms");
    for (int i = 0; i < extra.length; i += 2) {
      b.set(extra[i], extra[i + 1]);
    }
    return Slipstream.builder().config(b.build()).isolatedResources().build();
  }

  private static void readAllAndVerify(SlipstreamInputStream in, long seed) throws IOException {
    byte[] all = in.readAllBytes();
    assertThat(all.length).isEqualTo((int) in.length());
    long bad = TestData.firstMismatch(seed, 0, all, 0, all.length);
    if (bad >= 0) {
      fail("wrong byte at " + bad);
    }
  }

  static Predicate<RequestInfo> getOfBlock(int index) {
    String prefix = "bytes=" + (index * 256L * 1024) + "-";
    return r -> r.isGet() && r.range() != null && r.range().startsWith(prefix);
  }

  @ParameterizedTest
  @EnumSource(value = FaultKind.class, mode = EnumSource.Mode.EXCLUDE, names = "STATUS_403") // not retried
  void scriptedFaultIsRetriedAndCountedAndBytesAreRight(FaultKind kind) throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      shaper.stallMillis(5000);
      shaper.injectNext(kind, getOfBlock(3));
      shaper.injectNext(kind, getOfBlock(9));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in, 42);
        RetryCause expected = switch (kind) {
          case RESET_MID_BODY -> RetryCause.CONNECTION_RESET;
          case STATUS_503 -> RetryCause.THROTTLED;
          case STATUS_500 -> RetryCause.SERVER_ERROR;
          case STALL -> RetryCause.STALL;
          case TRUNCATE -> RetryCause.TRUNCATED;
          case STATUS_403 -> throw new AssertionError("a 403 is not retried");
        };
        assertThat(shaper.faultsInjected(kind)).isEqualTo(2);
        assertThat(in.statistics().retries(expected)).as("retries by %s: %s", expected, in.statistics())
            .isEqualTo(2);
        assertThat(in.statistics().get(Counter.RETRIES)).isEqualTo(2);
      }
      assertThat(client.memoryInUse()).isZero();
    }
  }

  @Test
  void stallIsDetectedWhateverTheHttpClientsSocketTimeout() throws IOException {
    // A client built elsewhere (as Hadoop's S3A builds its own) with a socket timeout of a minute:
    // the stall watchdog, not the socket, must notice the stalled body.
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 7);
    shaper.stallMillis(20_000);
    SlipstreamConfig base = TestClients.config(shaper.endpoint())
        .set("block.size", "256K").set("memory.max", "8M").set("retry.interval", "10ms").build();
    try (software.amazon.awssdk.services.s3.S3Client patient = dev.slipstream.internal.store.S3ClientFactory.create(
            base.toBuilder().set("read.stall.timeout", "60s").build());
         Slipstream client = Slipstream.builder().isolatedResources().s3Client(patient)
             .config(base.toBuilder().set("read.stall.timeout", "400ms").build()).build()) {
      shaper.injectNext(FaultKind.STALL, getOfBlock(5));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in, 42);
        assertThat(in.statistics().retries(RetryCause.STALL)).isEqualTo(1);
      }
    }
  }

  @Test
  void retryAfterAFaultMidBodyAsksOnlyForTheMissingBytes() throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      shaper.injectNext(FaultKind.TRUNCATE, getOfBlock(2));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in, 42);
        // Every byte was fetched once, except none: the retry resumed where the body was cut.
        assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(SIZE);
      }
    }
  }

  @Test
  void flakyProfileWithEveryFaultKindGivesCorrectBytes() throws IOException {
    // The flaky link with a higher fault rate, so that one run meets every kind of fault.
    LinkProfile profile = LinkProfile.FLAKY.withFaultProbability(0.25);
    try (Slipstream client = client(profile, "retry.max", "10")) {
      shaper.stallMillis(4000);
      for (int round = 0; round < 6; round++) {
        try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
          readAllAndVerify(in, 42);
        }
      }
      for (FaultKind kind : FaultKind.values()) {
        if (kind == FaultKind.STATUS_403) {
          continue; // never drawn at random
        }
        assertThat(shaper.faultsInjected(kind)).as("faults of kind %s", kind).isPositive();
      }
      assertThat(client.statistics().get(Counter.RETRIES)).isPositive();
      assertThat(client.memoryInUse()).isZero();
    }
  }

  @Test
  void flakyProfileAsSpecifiedGivesCorrectBytes() throws IOException {
    try (Slipstream client = client(LinkProfile.FLAKY)) {
      shaper.stallMillis(4000);
      for (int round = 0; round < 3; round++) {
        try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
          readAllAndVerify(in, 42);
        }
      }
    }
  }

  @Test
  void retriesRunOutWithAClearError() throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK, "retry.max", "2")) {
      for (int i = 0; i < 3; i++) {
        shaper.injectNext(FaultKind.STATUS_503, getOfBlock(0));
      }
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        assertThatThrownBy(in::read)
            .isInstanceOf(IOException.class)
            .hasMessageContaining("s3://" + BUCKET + "/data")
            .hasMessageContaining("3 attempts");
      }
      assertThat(client.memoryInUse()).isZero();
    }
  }

  @Test
  void objectOverwrittenMidReadFailsClearlyAndNeverMixesVersions() throws IOException {
    S3.server().putGenerated(BUCKET, "changing", 1, SIZE);
    try (Slipstream client = client(LinkProfile.LOOPBACK, "prefetch.blocks", "2")) {
      shaper.onRequest(getOfBlock(6).and(r -> r.path().endsWith("/changing")),
          () -> S3.server().putGenerated(BUCKET, "changing", 2, SIZE));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/changing")) {
        byte[] buf = new byte[64 * 1024];
        long pos = 0;
        try {
          int n;
          while ((n = in.read(buf)) > 0) {
            long bad = TestData.firstMismatch(1, pos, buf, 0, n);
            if (bad >= 0) {
              fail("byte at " + bad + " is not from the version opened");
            }
            pos += n;
          }
          fail("the read finished although the object changed");
        } catch (ObjectChangedException e) {
          assertThat(e).hasMessageContaining("object changed while being read")
              .hasMessageContaining("s3://" + BUCKET + "/changing");
          assertThat(pos).isLessThanOrEqualTo(7L * 256 * 1024);
        }
      }
    }
  }

  @Test
  void objectOverwrittenBetweenHeadAndFirstGetIsDetected() throws IOException {
    S3.server().putGenerated(BUCKET, "changed-early", 1, SIZE);
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      shaper.onRequest(r -> r.isGet() && r.path().endsWith("/changed-early"),
          () -> S3.server().putGenerated(BUCKET, "changed-early", 3, SIZE));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/changed-early")) {
        assertThatThrownBy(() -> in.readAllBytes()).isInstanceOf(ObjectChangedException.class);
      }
    }
  }
}
