/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/** {@link FollowedOrders} over files of one length in many partitions: Spark's partition order. */
class FollowedOrdersTest {
  static final String BUCKET = "b";

  @Test
  void filesOfOneLengthFollowSparksPartitionOrderAndEachDirectoryIsHashedOnce() {
    List<ObjectRef> byKey = new ArrayList<>();
    List<Path> directories = new ArrayList<>();
    for (int p = 0; p < 40; p++) {
      String dir = String.format("t/dt=%02d", p);
      byKey.add(new ObjectRef(new S3Location(BUCKET, dir + "/part-0.parquet"), 1000, "e"));
      directories.add(PartitionOrderTest.path(dir));
    }
    List<S3Location> spark = new ArrayList<>();
    for (Path d : PartitionOrderTest.scalaOrder(directories)) {
      spark.add(new S3Location(BUCKET, d.toUri().getPath().substring(1) + "/part-0.parquet"));
    }
    AtomicInteger hashed = new AtomicInteger();
    FollowedOrders orders = new FollowedOrders(dir -> {
      hashed.incrementAndGet();
      return PartitionOrderTest.path(dir).hashCode();
    });
    FollowedOrders.Listed listed = (bucket, dir) -> byKey.stream().filter(f -> f.location().key().startsWith(dir)).toList();

    List<ObjectRef> next = orders.following(spark.get(0), spark.get(1), 2, listed);
    assertThat(next).extracting(ObjectRef::location).containsExactly(spark.get(2), spark.get(3));
    int once = hashed.get();
    assertThat(once).as("every directory of the table, once").isEqualTo(40);
    next = orders.following(spark.get(1), spark.get(2), 2, listed);
    assertThat(next).extracting(ObjectRef::location).containsExactly(spark.get(3), spark.get(4));
    // A thread that moves on to a file of the order, after a file of no order, follows the order proven.
    next = orders.following(null, spark.get(20), 1, listed);
    assertThat(next).extracting(ObjectRef::location).containsExactly(spark.get(21));
    assertThat(hashed.get()).as("no directory hashed again").isEqualTo(once);
  }
}
