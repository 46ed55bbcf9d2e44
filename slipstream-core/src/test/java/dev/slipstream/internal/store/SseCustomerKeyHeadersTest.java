/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;

/** What the decorator puts on a request: AES256, the key, the key's MD5 (S3's three SSE-C headers), or nothing. */
class SseCustomerKeyHeadersTest {
  private static final byte[] RAW = new byte[32];

  static {
    for (int i = 0; i < RAW.length; i++) {
      RAW[i] = (byte) (i * 7 + 3);
    }
  }

  private static final String KEY = Base64.getEncoder().encodeToString(RAW);

  @Test
  void aGetAndAHeadCarryTheAlgorithmTheKeyAndItsMd5() throws Exception {
    String md5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(RAW));
    SseCustomerKey key = SseCustomerKey.of(Optional.of(KEY));
    GetObjectRequest.Builder get = GetObjectRequest.builder().bucket("b").key("k").range("bytes=0-0");
    key.addTo(get);
    GetObjectRequest g = get.build();
    assertThat(g.sseCustomerAlgorithm()).isEqualTo("AES256");
    assertThat(g.sseCustomerKey()).isEqualTo(KEY);
    assertThat(g.sseCustomerKeyMD5()).isEqualTo(md5);
    assertThat(g.toString()).as("the SDK's text of the request").doesNotContain(KEY);
    HeadObjectRequest.Builder head = HeadObjectRequest.builder().bucket("b").key("k");
    key.addTo(head);
    HeadObjectRequest h = head.build();
    assertThat(h.sseCustomerAlgorithm()).isEqualTo("AES256");
    assertThat(h.sseCustomerKey()).isEqualTo(KEY);
    assertThat(h.sseCustomerKeyMD5()).isEqualTo(md5);
    assertThat(h.toString()).doesNotContain(KEY);
  }

  @Test
  void noKeyLeavesTheRequestAsItWas() {
    GetObjectRequest.Builder get = GetObjectRequest.builder().bucket("b").key("k");
    SseCustomerKey.NONE.addTo(get);
    assertThat(get.build()).isEqualTo(GetObjectRequest.builder().bucket("b").key("k").build());
    HeadObjectRequest.Builder head = HeadObjectRequest.builder().bucket("b").key("k");
    SseCustomerKey.NONE.addTo(head);
    assertThat(head.build().sseCustomerKey()).isNull();
  }
}
