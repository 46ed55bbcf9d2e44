/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.S3Location;
import dev.slipstream.TestClients;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.utils.DateUtils;

/**
 * A GET's Last-Modified, which the read path's client takes out of the SDK's unmarshalling and parses once
 * per value: the same instant as the SDK's parse and as a HEAD's, with or without the interceptor.
 */
class LastModifiedHeaderTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();

  @Test
  void aGetThroughTheReadPathsClientNamesTheSameLastModifiedAsAHeadAndAsAClientWithoutTheInterceptor()
      throws IOException {
    S3.server().createBucket("lastmod");
    S3.server().putGenerated("lastmod", "obj", 3, 10_000);
    S3Location where = new S3Location("lastmod", "obj");
    var config = TestClients.config(S3.server()).build();
    try (ObjectStore store = S3ObjectStore.create(config); S3Client plain = S3ClientFactory.create(config)) {
      Instant headed = store.head(where).lastModified();
      ObjectStore.Body moved = store.get(where, 0, 100, ObjectStore.Version.ANY);
      moved.abort();
      ObjectStore.Body kept = S3ObjectStore.over(plain, plain, SseCustomerKey.NONE, Map.of(), null)
          .get(where, 0, 100, ObjectStore.Version.ANY);
      kept.abort();

      try (S3Client reads = S3ClientFactory.createForReads(config)) {
        var r = reads.getObject(b -> b.bucket("lastmod").key("obj").range("bytes=0-9"),
            software.amazon.awssdk.core.sync.ResponseTransformer.toBytes()).response();
        assertThat(r.lastModified()).as("not parsed by the SDK").isNull();
        assertThat(r.sdkHttpResponse().firstMatchingHeader(LastModifiedHeader.HEADER)).isEmpty();
        assertThat(r.sdkHttpResponse().firstMatchingHeader(LastModifiedHeader.MOVED)).isPresent();
        assertThat(reads.headObject(b -> b.bucket("lastmod").key("obj")).lastModified())
            .as("a HEAD through the same client keeps the SDK's parse").isEqualTo(headed);
      }
      assertThat(headed).isNotNull();
      assertThat(moved.lastModified()).isEqualTo(headed);
      assertThat(kept.lastModified()).isEqualTo(headed);
    }
  }

  @Test
  void aValueParsesToTheSdksInstantTheFirstTimeAndEveryTimeAfter() {
    Random r = new Random(61);
    for (int i = 0; i < 500; i++) {
      String text = DateUtils.formatRfc822Date(Instant.ofEpochSecond(r.nextInt(Integer.MAX_VALUE)));
      Instant sdk = DateUtils.parseRfc822Date(text);
      assertThat(LastModifiedHeader.parse(text)).as(text).isEqualTo(sdk);
      assertThat(LastModifiedHeader.parse(text)).as(text).isEqualTo(sdk);
    }
  }

  @Test
  void aValueTheSdksParserRefusesIsRefusedHereToo() {
    assertThatThrownBy(() -> LastModifiedHeader.parse("yesterday, around noon"))
        .isInstanceOf(DateTimeParseException.class);
  }
}
