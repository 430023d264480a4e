// The registry's records (`RegistryModel`, `RolloutSplit`, …) and identifier rules are the wire
// contract this client shares with the registry; users of ModelDelivery get them with it.
@_exported import HybridAIWire
