/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RecentAnswersTest {
  private static final S3Location FILE = S3Location.parse("s3://b/dir/file");
  private static final ETag V1 = ETag.fromServer("\"v1\"");

  @Test
  void anAnswerStandsForItsVersionUntilAWriteUnderItsPrefix() {
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30));
    answers.answered(FILE, V1, null, 10, answers.generation());
    assertThat(answers.fresh(FILE, V1, null)).isTrue();
    assertThat(answers.fresh(FILE, ETag.fromServer("\"v2\""), null)).as("another version").isFalse();
    answers.forgetUnder(S3Location.parse("s3://b/dir/"));
    assertThat(answers.fresh(FILE)).isNull();
  }

  @Test
  void aWriteAtTheBucketsRootForgetsEveryAnswerOfThatBucketOnly() {
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30));
    S3Location other = S3Location.parse("s3://c/dir/file");
    answers.answered(FILE, V1, null, 10, answers.generation());
    answers.answered(other, V1, null, 10, answers.generation());
    answers.forgetUnder("b", ""); // a recursive delete of s3a://b/, say
    assertThat(answers.fresh(FILE)).isNull();
    assertThat(answers.fresh(other)).as("another bucket's").isNotNull();
  }

  @Test
  void anAnswerToARequestSentBeforeAWriteIsNotKept() {
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30));
    long sentAt = answers.generation(); // a GET of the old version goes out
    answers.forgetUnder(FILE); // meanwhile this client replaces the object
    answers.answered(FILE, V1, null, 10, sentAt); // the GET's answer names the version replaced
    assertThat(answers.fresh(FILE)).as("an answer that may name the replaced version").isNull();
    answers.answered(FILE, ETag.fromServer("\"v2\""), null, 12, answers.generation());
    assertThat(answers.fresh(FILE)).as("a request sent after the write").isNotNull();
  }

  @Test
  void aTtlOfZeroKeepsNothing() {
    RecentAnswers answers = new RecentAnswers(Duration.ZERO);
    answers.answered(FILE, V1, null, 10, answers.generation());
    assertThat(answers.fresh(FILE)).isNull();
  }
}
