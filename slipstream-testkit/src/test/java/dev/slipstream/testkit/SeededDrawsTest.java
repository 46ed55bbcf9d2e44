/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SeededDrawsTest {
  private static final RequestInfo GET = new RequestInfo("GET", "/b/k", null, Map.of("Range", "bytes=0-9"));

  @Test
  void anIdenticalRequestIsCountedAndForgettingStartsTheCountAgain() {
    SeededDraws draws = new SeededDraws(7);
    RequestDraws first = draws.next(GET);
    assertThat(first.occurrence()).isZero();
    assertThat(draws.next(GET).occurrence()).isEqualTo(1);
    draws.forget();
    RequestDraws again = draws.next(GET);
    assertThat(again).as("the draws of a first occurrence").isEqualTo(first);
  }
}
