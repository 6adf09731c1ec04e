/*
Package iabconsent parses IAB TC strings of TCF v2 (the core string and its disclosed-vendors,
allowed-vendors and publisher TC segments): the part of LiveRamp's github.com/LiveRamp/iabconsent
(MIT, LICENSE beside this file) that consentd's adapters/tcstring uses. SOURCE.md says which
release it comes from and what was left out or changed.

The IAB Transparency and Consent String 2 Spec which can be found here:
https://github.com/InteractiveAdvertisingBureau/GDPR-Transparency-and-Consent-Framework/blob/47b45ab362515310183bb3572a367b8391ef4613/TCFv2/IAB%20Tech%20Lab%20-%20Consent%20string%20and%20vendor%20list%20formats%20v2.md#about-the-transparency--consent-string-tc-string

Copyright (c) 2020 LiveRamp. All rights reserved.

Written by Andy Day, Software Engineer @ LiveRamp for use in the LiveRamp Pixel Server.
*/
package iabconsent
