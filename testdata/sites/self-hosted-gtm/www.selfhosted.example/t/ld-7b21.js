
// Copyright 2012 Google Inc. All rights reserved.
(function(){
var data = {"resource":{"version":"42","macros":[{"function":"__e"},{"function":"__c","vtp_value":"G-SELF246810"}],"tags":[{"function":"__gaawc","metadata":["map"],"once_per_event":true,"vtp_sendPageView":true,"vtp_measurementId":["macro",1],"tag_id":3},{"function":"__html","metadata":["map"],"once_per_event":true,"vtp_html":"<script>!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};t=b.createElement(e);t.async=!0;t.src=v;s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window,document,'script','https://connect.facebook.net/en_US/fbevents.js');fbq('init', '246813579024681');fbq('track', 'PageView');</script>","vtp_supportDocumentWrite":false,"tag_id":4}],"predicates":[{"function":"_eq","arg0":["macro",0],"arg1":"gtm.js"}],"rules":[[["if",0],["add",0,1]]]},"runtime":[]};
/* runtime code: templates for every tag type, whatever this container uses */
var Xa=function(){return"https://www.google-analytics.com/analytics.js"};
var Ya=function(a){return"https://connect.facebook.net/"+a+"/fbevents.js"};
var Za="https://static.hotjar.com/c/hotjar-";
window.google_tag_manager=window.google_tag_manager||{};window.google_tag_manager["GTM-SELF9TQ"]={macro:function(){}};
})();
