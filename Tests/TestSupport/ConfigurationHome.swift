import CTestIsolation

/// The temporary folder that XDG_CONFIG_HOME points at in the test process (and in every program
/// the tests start): the tests never touch the user's own calibration store. Empty when the folder
/// could not be made (the tests then run with the environment they were given).
public var testConfigurationHome: String { String(cString: CTestIsolation_configurationHome()) }
