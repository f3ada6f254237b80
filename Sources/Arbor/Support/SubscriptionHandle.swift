/// Ends a subscription when the last value holding it is released.
public final class SubscriptionHandle<Element: Sendable>: Sendable {
  let subscription: Subscription<Element>
  init(_ subscription: Subscription<Element>) { self.subscription = subscription }
  deinit { subscription.terminate() }
}
