/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Content-Range as servers write it. */
class ContentRangeTest {
  @Test
  void contentRangeIsParsedOrRefused() {
    assertThat(ContentRange.parse("bytes 0-99/1234")).isEqualTo(new ContentRange(0, 99, 1234));
    assertThat(ContentRange.parse("bytes 8388608-16777215/25178457").length()).isEqualTo(8388608);
    assertThat(ContentRange.parse("bytes 0-99/*").total()).isEqualTo(-1);
    assertThat(ContentRange.parse(null)).isNull();
    assertThat(ContentRange.parse("bytes */1234")).isNull();
    assertThat(ContentRange.parse("bytes 100-99/1234")).isNull();
    assertThat(ContentRange.parse("bytes 0-1234/1234")).isNull();
    assertThat(ContentRange.parse("items 0-1/2")).isNull();
  }
}
