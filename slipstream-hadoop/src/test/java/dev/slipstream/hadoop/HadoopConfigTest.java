/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.SlipstreamConfig;
import java.io.IOException;
import java.util.Base64;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.S3AUtils;
import org.apache.hadoop.fs.s3a.auth.delegation.EncryptionSecrets;
import org.junit.jupiter.api.Test;

/** S3A's encryption settings as the read path takes them: only an SSE-C key, checked, never shown. */
class HadoopConfigTest {
  private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);

  private static EncryptionSecrets secrets(String algorithm, String key) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.bucket.b1.encryption.algorithm", algorithm);
    conf.set("fs.s3a.bucket.b1.encryption.key", key);
    return S3AUtils.buildEncryptionSecrets("b1", conf);
  }

  @Test
  void s3asSseCKeyBecomesTheClientsKey() throws IOException {
    SlipstreamConfig c = HadoopConfig.withS3AsCustomerKey(SlipstreamConfig.defaults(), secrets("SSE-C", KEY));
    assertThat(c.sseCustomerKey()).contains(KEY);
    assertThat(c.toString()).doesNotContain(KEY);
  }

  @Test
  void anotherEncryptionLeavesTheConfigurationAsItWas() throws IOException {
    SlipstreamConfig base = SlipstreamConfig.defaults();
    assertThat(HadoopConfig.withS3AsCustomerKey(base, secrets("SSE-KMS", "arn:aws:kms:us-east-1:1:key/k"))).isSameAs(base);
    assertThat(HadoopConfig.withS3AsCustomerKey(base, new EncryptionSecrets())).isSameAs(base);
    assertThat(HadoopConfig.withS3AsCustomerKey(base, null)).isSameAs(base);
  }

  @Test
  void aKeyS3WouldRefuseIsRefusedNamingS3AsSettingNotTheValue() throws IOException {
    String short16 = Base64.getEncoder().encodeToString(new byte[16]);
    EncryptionSecrets s = secrets("SSE-C", short16);
    assertThatThrownBy(() -> HadoopConfig.withS3AsCustomerKey(SlipstreamConfig.defaults(), s))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fs.s3a.encryption.key")
        .hasMessageContaining("16 bytes").hasMessageNotContaining(short16);
  }

  @Test
  void slipstreamsOwnKeyIsIgnoredInHadoopAsS3AsKeyApplies() {
    Configuration conf = new Configuration(false);
    conf.set("fs.slipstream.sse.customer.key", KEY);
    assertThat(HadoopConfig.slipstreamConfig(conf).sseCustomerKey()).isEmpty();
  }
}
