/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

  @Test
  void aWriteUnderAnotherPrefixDoesNotDropAnAnswerInFlight() {
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30));
    long sentAt = answers.generation(); // a GET of b/dir/file goes out
    answers.forgetUnder(S3Location.parse("s3://b/out/part-0")); // meanwhile a task closes its output elsewhere
    answers.forgetUnder("c", ""); // and another bucket is written
    answers.answered(FILE, V1, null, 10, sentAt);
    assertThat(answers.fresh(FILE)).as("an answer no write since its request touched").isNotNull();
  }

  @Test
  void aWriteToTheKeyAmongOthersStillDropsItsAnswerInFlight() {
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30));
    long sentAt = answers.generation();
    answers.forgetUnder(S3Location.parse("s3://b/out/part-0"));
    answers.forgetUnder(S3Location.parse("s3://b/di")); // a prefix of the key: a recursive delete, say
    answers.forgetUnder(S3Location.parse("s3://b/out/part-1"));
    answers.answered(FILE, V1, null, 10, sentAt);
    assertThat(answers.fresh(FILE)).isNull();
  }

  @Test
  void anAnswerToARequestOlderThanTheWritesRememberedIsNotKept() {
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30));
    long sentAt = answers.generation();
    for (int i = 0; i <= RecentAnswers.WRITES_KEPT; i++) {
      answers.forgetUnder(S3Location.parse("s3://b/out/part-" + i));
    }
    answers.answered(FILE, V1, null, 10, sentAt);
    assertThat(answers.fresh(FILE)).as("the writes since its request are not all remembered").isNull();
    answers.answered(FILE, V1, null, 10, answers.generation());
    assertThat(answers.fresh(FILE)).isNotNull();
  }

  @Test
  void anAnswerGoesAtItsTtlWithoutAnyLookUp() {
    AtomicLong now = new AtomicLong();
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30), RecentAnswers.MAX_BYTES, now::get);
    answers.answered(FILE, V1, null, 10, answers.generation());
    now.addAndGet(TimeUnit.SECONDS.toNanos(29));
    assertThat(answers.size()).isEqualTo(1);
    now.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(answers.size()).as("expired: the memory given back").isZero();
    assertThat(answers.fresh(FILE)).isNull();
  }

  /**
   * 200,000 distinct objects answered within the TTL: the answers stay within their bytes, and the ones
   * kept are the recent ones; once the TTL has passed, none is left.
   */
  @Test
  void answersForAnyNumberOfObjectsStayWithinTheirBytesAndGoAtTheirTtl() {
    AtomicLong now = new AtomicLong();
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30), RecentAnswers.MAX_BYTES, now::get);
    for (int i = 0; i < 200_000; i++) {
      answers.answered(S3Location.parse("s3://b/table/part-" + i + ".parquet"), V1, null, 10, answers.generation());
      now.addAndGet(TimeUnit.MICROSECONDS.toNanos(100)); // 20 s in all
    }
    int perAnswer = RecentAnswers.FIXED_BYTES + "table/part-100000.parquet".length();
    assertThat(answers.weightedBytes()).isLessThanOrEqualTo(RecentAnswers.MAX_BYTES);
    assertThat(answers.size()).isLessThanOrEqualTo(RecentAnswers.MAX_BYTES / (perAnswer - 1))
        .isGreaterThan(RecentAnswers.MAX_BYTES / perAnswer / 2);
    assertThat(answers.fresh(S3Location.parse("s3://b/table/part-199999.parquet"))).as("the last answer").isNotNull();
    now.addAndGet(TimeUnit.SECONDS.toNanos(30));
    assertThat(answers.size()).isZero();
    assertThat(answers.weightedBytes()).isZero();
  }
}
