/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reading orders a caller declared: what follows an object opened, and when an order is forgotten. */
class ReadingOrdersTest {
  private static List<ObjectRef> files(String prefix, int n) {
    List<ObjectRef> files = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      files.add(new ObjectRef(S3Location.parse("s3://b/" + prefix + i), 100, "\"e" + i + "\""));
    }
    return files;
  }

  @Test
  void anObjectOpenedNamesTheOnesThatFollowItUpToTheMost() {
    ReadingOrders orders = new ReadingOrders();
    List<ObjectRef> files = files("t/", 5);
    orders.remember(ReadingOrders.of(files));

    assertThat(orders.opened(files.get(1).location(), 2)).containsExactly(files.get(2), files.get(3));
    assertThat(orders.opened(files.get(3).location(), 8)).containsExactly(files.get(4));
    assertThat(orders.opened(S3Location.parse("s3://b/other"), 8)).isEmpty();
  }

  @Test
  void anOrderIsForgottenAtItsLastObjectOrWhenItsCallerClosesIt() {
    ReadingOrders orders = new ReadingOrders();
    List<ObjectRef> files = files("t/", 3);
    ReadingOrders.Order order = ReadingOrders.of(files);
    orders.remember(order);

    assertThat(orders.opened(files.get(2).location(), 8)).isEmpty();
    assertThat(orders.forget(order)).as("forgotten at its last object").isFalse();

    orders.remember(order);
    assertThat(orders.forget(order)).isTrue();
    assertThat(orders.opened(files.get(0).location(), 8)).isEmpty();
  }

  @Test
  void theOldestOrderIsForgottenBeyondTheMost() {
    ReadingOrders orders = new ReadingOrders();
    List<ReadingOrders.Order> all = new ArrayList<>();
    for (int i = 0; i <= ReadingOrders.MAX_ORDERS; i++) {
      ReadingOrders.Order o = ReadingOrders.of(files("o" + i + "/", 2));
      all.add(o);
      orders.remember(o);
    }

    assertThat(orders.opened(all.get(0).files().get(0).location(), 8)).as("the oldest").isEmpty();
    assertThat(orders.opened(all.get(1).files().get(0).location(), 8)).containsExactly(all.get(1).files().get(1));
  }
}
