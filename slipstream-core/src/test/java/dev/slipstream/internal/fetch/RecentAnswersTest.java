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
    for (int i = 0; i <= dev.slipstream.WriteLog.WRITES_KEPT; i++) {
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
    assertThat(answers.indexed()).as("the index holds the answers kept, no more").isEqualTo(answers.size());
    now.addAndGet(TimeUnit.SECONDS.toNanos(30));
    assertThat(answers.size()).isZero();
    assertThat(answers.weightedBytes()).isZero();
    assertThat(answers.indexed()).isZero();
  }

  @Test
  void anAnswerPutOverAnExpiredOneIsStillFoundByAForget() {
    AtomicLong now = new AtomicLong();
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30), RecentAnswers.MAX_BYTES, now::get);
    answers.answered(FILE, V1, null, 10, answers.generation());
    now.addAndGet(TimeUnit.SECONDS.toNanos(31)); // expired, not yet dropped
    answers.answered(FILE, V1, null, 10, answers.generation()); // the same version, answered again
    assertThat(answers.fresh(FILE)).isNotNull();
    assertThat(answers.indexed()).isEqualTo(1);
    answers.forgetUnder(S3Location.parse("s3://b/dir"));
    assertThat(answers.fresh(FILE)).isNull();
    assertThat(answers.indexed()).isZero();
  }

  /** Answers, refusals, forgets and expiry on a few keys from several threads: a forget still finds every answer kept. */
  @Test
  void underConcurrentAnswersAndForgetsTheIndexHoldsTheAnswersKept() throws Exception {
    AtomicLong now = new AtomicLong();
    RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30), 200L * RecentAnswers.FIXED_BYTES, now::get);
    int threads = 4;
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = t;
        done.add(pool.submit(() -> {
          java.util.Random random = new java.util.Random(seed);
          for (int i = 0; i < 50_000; i++) {
            S3Location l = new S3Location("b", "d" + random.nextInt(4) + "/f" + random.nextInt(100));
            switch (random.nextInt(8)) {
              case 0 -> answers.forgetUnder(l);
              case 1 -> answers.forgetUnder("b", "d" + random.nextInt(4));
              case 2 -> answers.forget(l);
              case 3 -> now.addAndGet(TimeUnit.SECONDS.toNanos(1));
              default -> answers.answered(l, V1, null, 10, answers.generation());
            }
          }
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(answers.indexed()).isEqualTo(answers.size());
    answers.forgetUnder("b", "");
    assertThat(answers.size()).as("every answer kept was found by the forget").isZero();
    assertThat(answers.indexed()).isZero();
  }

  /**
   * Iceberg's expiry deletes 100,000 paths one by one while 20,000 answers stand: each forget looks at
   * the answers it forgets and at most one more (the first key after its prefix), however many are kept.
   * Counted, not timed: before the answers were indexed, each forget looked at every answer kept.
   */
  @Test
  void aForgetExaminesWhatItForgetsNotEveryAnswerKept() {
    int paths = 100_000;
    long[] examinedPerPath = new long[2];
    int[] kept = {0, 20_000};
    for (int run = 0; run < 2; run++) {
      RecentAnswers answers = new RecentAnswers(Duration.ofSeconds(30), 64L << 20, () -> 0L);
      for (int i = 0; i < kept[run]; i++) { // the table's live files, and another table's
        String key = String.format(i % 2 == 0 ? "t/data/g-%06d" : "a/data/f-%06d", i);
        answers.answered(new S3Location("b", key), V1, null, 10, answers.generation());
      }
      for (int i = 0; i < 10_000; i++) { // deleted files read lately
        answers.answered(new S3Location("b", String.format("t/data/f-%06d", i)), V1, null, 10, answers.generation());
      }
      long before = answers.examined();
      for (int i = 0; i < paths; i++) {
        answers.forgetUnder("b", String.format("t/data/f-%06d", i));
      }
      examinedPerPath[run] = answers.examined() - before;
      assertThat(answers.fresh(new S3Location("b", "t/data/f-000007"))).as("a deleted file's answer").isNull();
      assertThat(answers.size()).as("the deleted files' answers gone, the live ones kept").isEqualTo(kept[run]);
    }
    assertThat(examinedPerPath[1]).as("answers examined by %,d forgets with %,d answers kept", paths, kept[1])
        .isLessThanOrEqualTo(2L * paths);
    assertThat(examinedPerPath[0]).as("and with none kept").isLessThanOrEqualTo(2L * paths);
  }
}
