/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.RequestInfo;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.metrics.MetricPublisher;

/**
 * S3A's request statistics count the read path's GETs as S3A's publisher counted them from the SDK's
 * metrics ({@link S3ARequestStatistics}; this test passed with the SDK's metrics before): every request on
 * the wire one {@code store_io_request}, one answered {@code 503} too, and no {@code store_io_retry} (the
 * read path's retries are its own, each a request of its own).
 */
@Timeout(120)
class ReadsClientStatisticsTest {
  static final String BUCKET = "reads-statistics";
  static final int SIZE = 5 * 1024 * 1024 + 77;
  static final long SEED = 61;
  @RegisterExtension
  static final ShapedBucket S3 = new ShapedBucket(BUCKET);

  static Path file() {
    return new Path("s3a://" + BUCKET + "/data.bin");
  }

  @BeforeAll
  static void write() throws IOException {
    try (SlipstreamS3AFileSystem fs = S3.newFileSystem()) {
      OpenFromListingTest.write(fs, file(), SEED, SIZE);
    }
  }

  private static long counter(SlipstreamS3AFileSystem fs, String name) {
    IOStatistics s = fs.getIOStatistics();
    Long value = s.counters().get(name);
    return value == null ? 0 : value;
  }

  @Test
  void everyRequestOnTheWireIsOneS3ARequestAFailedOneToo() throws IOException {
    try (SlipstreamS3AFileSystem fs = S3.newFileSystem()) {
      assertThat(fs.readsThroughOwnClient()).isTrue();
      long requests = counter(fs, "store_io_request");
      long throttled = counter(fs, "store_io_throttled");
      long retries = counter(fs, "store_io_retry");
      long onTheWire = S3.shaper().requests();
      long gets = S3.shaper().requests("GET");
      S3.shaper().injectNext(FaultKind.STATUS_503, RequestInfo::isGet);

      OpenFromListingTest.assertReads(fs, file(), SEED, SIZE);

      assertThat(S3.shaper().faultsInjected(FaultKind.STATUS_503)).isEqualTo(1);
      assertThat(S3.shaper().requests("GET") - gets).as("GETs on the wire, the one answered 503 among them")
          .isGreaterThan(2);
      assertThat(counter(fs, "store_io_request") - requests).as("store_io_request: S3A's HEAD and every GET")
          .isEqualTo(S3.shaper().requests() - onTheWire);
      assertThat(counter(fs, "store_io_retry") - retries).as("store_io_retry").isZero();
      // S3A's publisher counts a 429 as a throttle, not S3's 503 Slow Down: none here, as with the SDK's metrics
      assertThat(counter(fs, "store_io_throttled") - throttled).as("store_io_throttled").isZero();
    }
  }

  @Test
  void theReadsClientLeavesS3AsPublisherToItsOwnCountWhereEveryPublisherIsS3As() throws IOException {
    try (SlipstreamS3AFileSystem fs = S3.newFileSystem()) {
      List<MetricPublisher> s3as = fs.getS3AInternals().getAmazonS3Client("test").serviceClientConfiguration()
          .overrideConfiguration().metricPublishers();
      assertThat(s3as).isNotEmpty();
      assertThat(S3ARequestStatistics.replaces(s3as)).isTrue();
      List<MetricPublisher> withUsers = new java.util.ArrayList<>(s3as);
      withUsers.add(new UsersPublisher());
      assertThat(S3ARequestStatistics.replaces(withUsers)).isFalse();
      assertThat(S3ARequestStatistics.replaces(List.of())).isFalse();
    }
  }

  /** A metric publisher of the user's: the SDK's metrics stay as they were. */
  static final class UsersPublisher implements MetricPublisher {
    @Override
    public void publish(software.amazon.awssdk.metrics.MetricCollection metrics) {}

    @Override
    public void close() {}
  }
}
