(function () {
  var cfg = window.__cfg || { heat: [3456, 789], widget: 'widgetco' };
  var id = String(cfg.heat[0]) + String(cfg.heat[1]);
  var parts = ['static', 'hot' + 'jar', 'com'];
  function load(u) { var s = document.createElement('script'); s.async = true; s.src = u; document.head.appendChild(s); }
  load('https://' + parts.join('.') + '/c/hotjar-' + id + '.js?sv=' + (2 * 3));
  load('https://cdn.' + cfg.widget + '.example/w.js');
})();
