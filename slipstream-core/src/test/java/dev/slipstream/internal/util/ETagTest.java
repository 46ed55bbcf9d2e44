/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** One ETag however it is spelled. */
class ETagTest {
  @Test
  void quotedAndBareSpellingsAreOneETag() {
    ETag quoted = ETag.parse("\"af31\"");
    ETag bare = ETag.parse("af31");
    assertThat(quoted).isEqualTo(bare).hasSameHashCodeAs(bare);
    assertThat(quoted.toString()).isEqualTo("\"af31\"");
    assertThat(bare.toString()).isEqualTo("\"af31\"");
    assertThat(bare.opaque()).isEqualTo("af31");
    assertThat(ETag.same("\"af31\"", "af31")).isTrue();
    assertThat(ETag.same("af31", "af32")).isFalse();
    assertThat(ETag.same((String) null, null)).isTrue();
    assertThat(ETag.same("af31", null)).isFalse();
  }

  @Test
  void aMultipartETagIsOneOpaqueValueWithItsPartCount() {
    // S3's ETag of a multipart upload: the digest of the parts' digests, a dash, the number of parts.
    ETag quoted = ETag.parse("\"3858f62230ac3c915f300c664312c11f-12\"");
    ETag bare = ETag.parse("3858f62230ac3c915f300c664312c11f-12");
    assertThat(quoted).isEqualTo(bare);
    assertThat(quoted.opaque()).isEqualTo("3858f62230ac3c915f300c664312c11f-12");
    assertThat(quoted.toString()).isEqualTo("\"3858f62230ac3c915f300c664312c11f-12\"");
    // another part count is another upload, so another version
    assertThat(ETag.same("3858f62230ac3c915f300c664312c11f-12", "3858f62230ac3c915f300c664312c11f-11")).isFalse();
  }

  @Test
  void weaknessIsKeptButDoesNotMakeAnotherVersion() {
    ETag weak = ETag.parse("W/\"af31\"");
    assertThat(weak.toString()).isEqualTo("W/\"af31\"");
    assertThat(weak).isEqualTo(ETag.parse("af31"));
  }

  @Test
  void nothingOrGarbageIsNoETag() {
    assertThat(ETag.parse(null)).isNull();
    assertThat(ETag.fromServer("")).isNull();
    assertThat(ETag.fromServer("\"\"")).isNull();
    assertThatThrownBy(() -> ETag.parse("  ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ETag.parse("a\"b")).isInstanceOf(IllegalArgumentException.class);
  }
}
