/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The scripted store's LIST answers: S3's paging and roll-up, and the rules of the stores it models. */
class ScriptedListingTest {
  static final List<ScriptedListing.Entry> OBJECTS = new ArrayList<>();

  static {
    for (int d = 0; d < 5; d++) {
      for (int f = 0; f < 4; f++) {
        OBJECTS.add(new ScriptedListing.Entry("t/d=" + d + "/f" + f, f, "e" + d + f, Instant.EPOCH));
      }
    }
    OBJECTS.add(new ScriptedListing.Entry("t/top", 1, "top", Instant.EPOCH));
  }

  static List<String> all(String tag, String xml) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("<" + tag + ">([^<]*)</" + tag + ">").matcher(xml);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** Every key of a listing, page after page, following the tokens (v2) or markers (v1). */
  static List<String> keys(String bucket, String query, boolean v2, List<Integer> statuses) {
    List<String> keys = new ArrayList<>();
    String next = null;
    do {
      String q = query + (next == null ? "" : (v2 ? "&continuation-token=" : "&marker=") + next);
      ScriptedListing.Answer a = ScriptedListing.answer(bucket, q, OBJECTS, true);
      statuses.add(a.status());
      keys.addAll(all("Key", a.xml()));
      List<String> n = all(v2 ? "NextContinuationToken" : "NextMarker", a.xml());
      next = n.isEmpty() ? null : n.get(0);
    } while (next != null);
    return keys;
  }

  @Test
  void aGeneralPurposeBucketListsInKeyOrderPageByPage() {
    List<Integer> statuses = new ArrayList<>();
    List<String> v2 = keys("b", "list-type=2&prefix=t/&max-keys=3", true, statuses);
    List<String> v1 = keys("b", "prefix=t/&max-keys=3", false, statuses);
    List<String> sorted = OBJECTS.stream().map(ScriptedListing.Entry::key).sorted().toList();
    assertThat(v2).isEqualTo(sorted);
    assertThat(v1).isEqualTo(sorted);
    assertThat(statuses).containsOnly(200);
    ScriptedListing.Answer after = ScriptedListing.answer("b", "list-type=2&prefix=t/&start-after=t/d=3/f3", OBJECTS,
        true);
    assertThat(all("Key", after.xml())).containsExactly("t/d=4/f0", "t/d=4/f1", "t/d=4/f2", "t/d=4/f3", "t/top");
    ScriptedListing.Answer level = ScriptedListing.answer("b", "list-type=2&prefix=t/&delimiter=/", OBJECTS, true);
    assertThat(all("Prefix", level.xml())).containsExactly("t/", "t/d=0/", "t/d=1/", "t/d=2/", "t/d=3/", "t/d=4/");
    assertThat(all("Key", level.xml())).containsExactly("t/top");
  }

  @Test
  void aDirectoryBucketListsUnorderedAndRefusesWhatAwsSaysItRefuses() {
    String bucket = "b--usw2-az1--x-s3";
    List<Integer> statuses = new ArrayList<>();
    List<String> keys = keys(bucket, "list-type=2&prefix=t/&max-keys=4", true, statuses);
    List<String> sorted = OBJECTS.stream().map(ScriptedListing.Entry::key).sorted().toList();
    assertThat(keys).containsExactlyInAnyOrderElementsOf(sorted).isNotEqualTo(sorted);
    assertThat(statuses).containsOnly(200);
    for (String refused : new String[] {"list-type=2&prefix=t/&start-after=t/d=1/f1", "list-type=2&prefix=t/d",
        "list-type=2&prefix=t/&delimiter=-", "prefix=t/"}) {
      ScriptedListing.Answer a = ScriptedListing.answer(bucket, refused, OBJECTS, true);
      assertThat(a.status()).as(refused).isEqualTo(400);
      assertThat(a.xml()).contains("<Error>");
    }
  }

  @Test
  void aStoreWithoutListObjectsV2RefusesListType2AndListsV1() {
    assertThat(ScriptedListing.answer("b", "list-type=2&prefix=t/", OBJECTS, false).status()).isEqualTo(400);
    ScriptedListing.Answer v1 = ScriptedListing.answer("b", "prefix=t/d=1/", OBJECTS, false);
    assertThat(v1.status()).isEqualTo(200);
    assertThat(all("Key", v1.xml())).containsExactly("t/d=1/f0", "t/d=1/f1", "t/d=1/f2", "t/d=1/f3");
  }
}
