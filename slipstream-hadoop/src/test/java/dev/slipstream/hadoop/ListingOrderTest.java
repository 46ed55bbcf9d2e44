/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import dev.slipstream.WriteLog;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/** The listing order open-ahead follows, and the listed versions {@code open(path)} uses instead of a HEAD. */
class ListingOrderTest {
  static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  static ListingOrder order(int capacity) {
    return order(capacity, new WriteLog());
  }

  static ListingOrder order(int capacity, WriteLog writes) {
    return new ListingOrder(capacity, true, st -> {
      String key = st.getPath().toUri().getPath().substring(1);
      return new ObjectRef(new S3Location("b", key), st.getLen(), "\"e-" + key + "\"");
    }, writes);
  }

  static FileStatus file(String key, long len) {
    return new FileStatus(len, false, 1, 1, 0, new Path("s3a://b/" + key));
  }

  static S3Location at(String key) {
    return new S3Location("b", key);
  }

  @Test
  void theNextFilesOfAListingFollowInItsOrder() {
    ListingOrder o = order(100);
    o.listed(new FileStatus[] {file("d/a", 1), file("d/b", 2), file("d/c", 3)}, o.generation());
    assertThat(o.after(at("d/a"), 2)).extracting(r -> r.location().key()).containsExactly("d/b", "d/c");
    assertThat(o.after(at("d/c"), 2)).isEmpty();
    assertThat(o.after(at("d/x"), 2)).isEmpty();
  }

  @Test
  void aListedFileGivesItsLengthAndVersionWhileTheListingIsFresh() throws Exception {
    ListingOrder o = order(100);
    o.listed(new FileStatus[] {file("d/a", 10), file("d/empty", 0)}, o.generation());
    ObjectRef a = o.listedWithin(at("d/a"), MINUTE).ref();
    assertThat(a.length()).isEqualTo(10);
    assertThat(a.etag()).isEqualTo("\"e-d/a\"");
    assertThat(o.listedWithin(at("d/empty"), MINUTE)).as("empty files are not remembered").isNull();
    assertThat(o.listedWithin(at("d/nope"), MINUTE)).isNull();
    Thread.sleep(5);
    assertThat(o.listedWithin(at("d/a"), TimeUnit.MILLISECONDS.toNanos(1))).as("older than asked").isNull();
  }

  @Test
  void aNewerListingGivesTheNewerVersion() {
    ListingOrder o = order(100);
    o.listed(new FileStatus[] {file("d/a", 10)}, o.generation());
    o.listed(new FileStatus[] {file("d/a", 20)}, o.generation());
    assertThat(o.listedWithin(at("d/a"), MINUTE).ref().length()).isEqualTo(20);
  }

  @Test
  void forgettingAPathForgetsItAndWhatIsUnderItOnly() {
    ListingOrder o = order(100);
    o.listed(new FileStatus[] {file("d/a", 1), file("d/ab", 1), file("d/a/x", 1), file("d/a/y/z", 1),
        file("e/a", 1)}, o.generation());
    o.forgetUnder("b", "d/a");
    assertThat(o.listedWithin(at("d/a"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("d/a/x"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("d/a/y/z"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("d/ab"), MINUTE)).as("a sibling whose name starts alike").isNotNull();
    assertThat(o.listedWithin(at("e/a"), MINUTE)).isNotNull();
    o.forgetUnder("other", "");
    assertThat(o.listedWithin(at("e/a"), MINUTE)).as("another bucket").isNotNull();
    o.forgetUnder("b", "");
    assertThat(o.listedWithin(at("e/a"), MINUTE)).as("the bucket's root: everything").isNull();
  }

  @Test
  void beyondItsCapacityTheOldestListingsAreForgotten() {
    ListingOrder o = order(3);
    o.listed(new FileStatus[] {file("old/a", 1), file("old/b", 1)}, o.generation());
    o.listed(new FileStatus[] {file("new/a", 1), file("new/b", 1)}, o.generation());
    assertThat(o.size()).isLessThanOrEqualTo(3);
    assertThat(o.listedWithin(at("old/a"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("new/b"), MINUTE)).isNotNull();
  }

  @Test
  void aFileWrittenAfterItsListingsRequestWentOutIsNotRemembered() {
    WriteLog writes = new WriteLog();
    ListingOrder o = order(100, writes);
    long sentAt = o.generation(); // the listing's request goes out
    writes.wrote("b", "d/a"); // meanwhile the FileSystem replaces d/a: logged, then forgotten
    o.forgetUnder("b", "d/a");
    o.listed(new FileStatus[] {file("d/a", 10), file("d/b", 10)}, sentAt); // the answer shows the old d/a
    assertThat(o.listedWithin(at("d/a"), MINUTE)).as("it may name the version replaced").isNull();
    assertThat(o.listedWithin(at("d/b"), MINUTE)).as("no write touched it").isNotNull();

    ListingOrder.Listing handedOut = o.newListing(o.generation()); // an iterator, page by page
    handedOut.listed(file("d/a", 20));
    writes.wrote("b", "d"); // a recursive delete of d while it is iterated
    o.forgetUnder("b", "d");
    handedOut.listed(file("d/c", 20));
    assertThat(o.listedWithin(at("d/a"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("d/c"), MINUTE)).as("handed out after the write, from before it").isNull();

    o.listed(new FileStatus[] {file("d/a", 30)}, o.generation()); // a listing sent after the writes
    assertThat(o.listedWithin(at("d/a"), MINUTE).ref().length()).isEqualTo(30);
  }

  /**
   * An S3A bulk delete of 100,000 paths tells the FileSystem of each one, while 10,000 listed files are
   * remembered: each forget looks at the files under its path and at most two more, not at every file
   * remembered. Counted, not timed.
   */
  @Test
  void aForgetLooksAtTheFilesUnderItsPathNotAtEveryFileRemembered() {
    ListingOrder o = order(ListingOrder.DEFAULT_CAPACITY);
    FileStatus[] listed = new FileStatus[ListingOrder.DEFAULT_CAPACITY - 2];
    for (int i = 0; i < listed.length; i++) {
      listed[i] = file(String.format("t/part-%05d", i), 10);
    }
    o.listed(listed, o.generation());
    o.listed(new FileStatus[] {file("gone/f-000007", 10), file("gone/f-000007/under", 10)}, o.generation());
    long before = o.examined();
    int paths = 100_000;
    for (int i = 0; i < paths; i++) {
      o.forgetUnder("b", String.format("gone/f-%06d", i));
    }
    assertThat(o.examined() - before).as("files looked at by %,d forgets", paths).isLessThanOrEqualTo(3L * paths);
    assertThat(o.listedWithin(at("gone/f-000007"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("gone/f-000007/under"), MINUTE)).isNull();
    assertThat(o.listedWithin(at("t/part-09997"), MINUTE)).as("the files no forget touched").isNotNull();
    assertThat(o.size()).isEqualTo(ListingOrder.DEFAULT_CAPACITY); // forgotten here, still in their listing's order
  }
}
