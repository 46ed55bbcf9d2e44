/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionOrder} against the real thing: Scala 2.13's immutable {@code HashMap} of the same Hadoop
 * {@code Path}s, as Spark's partition discovery builds it ({@code files.groupBy(_.getPath.getParent)}).
 */
class PartitionOrderTest {
  static final String BUCKET = "b";

  /** The directories' order as a Scala immutable HashMap of their paths iterates them. */
  static List<Path> scalaOrder(List<Path> directories) {
    scala.collection.immutable.HashMap<Path, Integer> map = scala.collection.immutable.HashMap$.MODULE$.empty();
    for (Path d : directories) {
      map = map.updated(d, 0);
    }
    List<Path> order = new ArrayList<>();
    scala.collection.Iterator<Path> it = map.keysIterator();
    while (it.hasNext()) {
      order.add(it.next());
    }
    return order;
  }

  static Path path(String key) {
    return new Path("s3a://" + BUCKET + "/" + key);
  }

  /** One file in each directory, in key order; PartitionOrder's directories, in its order. */
  static List<Path> modelOrder(List<String> directoryKeys, String root) {
    List<ObjectRef> files = new ArrayList<>();
    directoryKeys.stream().sorted().forEach(d ->
        files.add(new ObjectRef(new S3Location(BUCKET, d + "/part-0.parquet"), 100, "e")));
    List<ObjectRef> ordered = PartitionOrder.byPartition(files, root, d -> path(d).hashCode());
    List<Path> order = new ArrayList<>();
    for (ObjectRef f : ordered) {
      order.add(path(f.location().key()).getParent());
    }
    return order;
  }

  @Test
  void partitionDirectoriesComeInTheOrderOfScalasHashMap() {
    for (int n : new int[] {5, 6, 17, 32, 33, 100, 200, 1000, 5000}) {
      List<String> keys = new ArrayList<>();
      List<Path> paths = new ArrayList<>();
      for (int p = 0; p < n; p++) {
        String d = String.format("warehouse/t/dt=%03d", p);
        keys.add(d);
        paths.add(path(d));
      }
      assertThat(modelOrder(keys, "warehouse/t/")).as("%d partitions", n).isEqualTo(scalaOrder(paths));
    }
  }

  @Test
  void twoLevelsAndRandomNamesComeInTheOrderOfScalasHashMap() {
    Random random = new Random(59);
    for (int round = 0; round < 50; round++) {
      int n = 5 + random.nextInt(400);
      List<String> keys = new ArrayList<>();
      List<Path> paths = new ArrayList<>();
      for (int p = 0; p < n; p++) {
        String d = "data/tbl/year=" + (2000 + random.nextInt(30)) + "/id=" + Long.toHexString(random.nextLong());
        if (!keys.contains(d)) {
          keys.add(d);
          paths.add(path(d));
        }
      }
      assertThat(modelOrder(keys, "data/tbl/")).as("round %d", round).isEqualTo(scalaOrder(paths));
    }
  }

  @Test
  void aFewDirectoriesHaveNoSuchOrder() {
    List<ObjectRef> files = new ArrayList<>();
    for (int p = 1; p <= 4; p++) {
      files.add(new ObjectRef(new S3Location(BUCKET, "t/a=" + p + "/part-0"), 100, "e"));
    }
    assertThat(PartitionOrder.byPartition(files, "t/", d -> path(d).hashCode())).isNull();
  }

  /** Every listed file moves the others' places: files Spark's listing leaves out are left out here too. */
  @Test
  void filesSparkLeavesOutAreLeftOut() {
    assertThat(PartitionOrder.hidden("_SUCCESS")).isTrue();
    assertThat(PartitionOrder.hidden("dt=1/.part-0.parquet.crc")).isTrue();
    assertThat(PartitionOrder.hidden("_temporary/0/part-0")).isTrue();
    assertThat(PartitionOrder.hidden("dt=1/part-0._COPYING_")).isTrue();
    assertThat(PartitionOrder.hidden("_dt=1/part-0")).isFalse(); // a partition column's name may start so
    assertThat(PartitionOrder.hidden("_metadata")).isFalse();
    assertThat(PartitionOrder.hidden("dt=1/part-0.parquet")).isFalse();
    List<ObjectRef> files = new ArrayList<>();
    List<Path> paths = new ArrayList<>();
    for (int p = 0; p < 40; p++) {
      String d = String.format("t/dt=%02d", p);
      files.add(new ObjectRef(new S3Location(BUCKET, d + "/part-0"), 100, "e"));
      files.add(new ObjectRef(new S3Location(BUCKET, d + "/_tmp/x"), 100, "e"));
      paths.add(path(d));
    }
    files.add(new ObjectRef(new S3Location(BUCKET, "t/_SUCCESS"), 0, "e"));
    List<Path> order = new ArrayList<>();
    for (ObjectRef f : PartitionOrder.byPartition(files, "t/", d -> path(d).hashCode())) {
      order.add(path(f.location().key()).getParent());
    }
    assertThat(order).isEqualTo(scalaOrder(paths));
  }
}
