function test_rodd(url, idle_url)
%TEST_RODD  The MATLAB client against a real daemon at url (run by tests/run.sh with GNU
%   Octave), and one at idle_url that closes connections idle for 1 s. Each check prints
%   "ok  ..." or raises an error.
  here = fileparts(mfilename('fullpath'));
  addpath(fullfile(here, '..'));
  addpath(fullfile(here, '..', 'examples'));
  c = rodd_client(url);
  spec = fileread(fullfile(here, '..', 'examples', 'cable_arm.json'));

  s = rodd_create(c, 'spec', spec, 'points', 5, 'recording', struct('rate', 20));
  check(strcmp(s.state, 'created'), 'create gives a created session');
  s = rodd_advance(c, s.id, 0.05);
  check(strcmp(s.state, 'paused') && abs(s.t - 0.05) < 1e-12, 'advance by 0.05 s');
  f = rodd_frame(c, s.id);
  check(isequal(size(f.position), [5 3]) && isequal(size(f.rotation), [5 3 3]), 'frame arrays are points x 3 (x 3)');
  check(max(abs(f.position(end, :) - [0 0 0.3])) < 1e-12, 'no tension: the tip stays at (0, 0, L)');
  check(max(max(abs(squeeze(f.rotation(3, :, :)) - eye(3)))) < 1e-12, 'straight: every R is the identity');
  r = rodd_set(c, s.id, struct('cable', 0.3));
  check(strcmp(r.status, 'applied'), 'set applies on a paused session');
  s = rodd_advance(c, s.id, 0.25);
  f = rodd_frame(c, s.id);
  check(f.position(end, 1) > 1e-4, 'tension bends the tip toward +x');
  R = squeeze(f.rotation(end, :, :));
  check(norm(R' * R - eye(3)) < 1e-8, 'the tip''s R is a rotation');
  % the third director (third column) is the centreline's tangent direction near the tip:
  % it leans toward +x like the tip does
  check(R(1, 3) > 0 && R(3, 3) > 0.9, 'rotation columns are the directors (d3 along the rod)');

  % the recording, through HDF5: the grid of 20 Hz from 0 to 0.3 s and the final frame
  rec = rodd_recording(c, s.id);
  check(numel(rec.t) == 7 && max(abs(rec.t' - (0:6) / 20)) < 1e-12, 'the recording holds the 20 Hz grid');
  check(isequal(size(rec.position), [7 5 3]), 'recorded position is frames x points x 3');
  last = squeeze(rec.position(end, :, :));
  check(max(abs(last(:) - f.position(:))) < 1e-9, ...
        'the last recorded frame is the published one');
  check(abs(rec.energy.elastic(end) - f.energy.elastic) <= 1e-9 * abs(f.energy.elastic), 'energies recorded');
  part = rodd_recording(c, s.id, 0.1, 0.2);
  check(numel(part.t) == 3, 'a time range');

  % the mechanics, against the recording's NDJSON: a shaken base with a payload, a pose
  % constraint, contacts that come and go (three, two, none)
  top = fullfile(here, '..', '..', '..');
  cases = {'shaken-rod-with-payload', 0.3, 'base'; 'euler-column', 0.3, 'constraints'; 'octopus-grasp', 1.5, 'contacts'};
  for k = 1:size(cases, 1)
    name = cases{k, 1};
    m = rodd_create(c, 'spec', fileread(fullfile(top, 'api', 'examples', [name '.json'])), 'points', 5, ...
                    'recording', struct('rate', 10));
    rodd_advance(c, m.id, cases{k, 2});
    rec = rodd_recording(c, m.id);
    [~, raw] = rodd_request(c, 'GET', ['/v1/sessions/' m.id '/recording?format=ndjson'], [], 'application/x-ndjson');
    lines = strsplit(strtrim(char(raw(:)')), char(10));
    F = numel(lines);
    check(numel(rec.t) == F && F == round(10 * cases{k, 2}) + 1, [name ': a frame every 0.1 s']);
    check(isfield(rec, cases{k, 3}), [name ': the recording has ' cases{k, 3}]);
    ok = true;
    counts = zeros(F, 1);
    for j = 1:F
      d = jsondecode(lines{j});
      if isfield(d, 'base')
        ok = ok && near(rec.base.position(j, :), d.base.position') && ...
             near(squeeze(rec.base.rotation(j, :, :)), reshape(d.base.rotation, 3, 3)') && ...
             near(rec.bodies.payload.position(j, :), d.bodies.payload.position');
      end
      if isfield(d, 'constraints')
        g = d.constraints.guide;
        r = rec.constraints.guide;
        ok = ok && near(r.force(j, :), g.force') && near(r.moment(j, :), g.moment') && ...
             near(r.point(j, :), g.point') && near(r.target(j, :), g.target') && near(r.violation(j), g.violation);
      end
      if isfield(d, 'contacts')
        counts(j) = numel(d.contacts);
        rows = rec.contacts.frame == j - 1;
        ok = ok && rec.contacts.count(j) == counts(j) && nnz(rows) == counts(j);
        if counts(j)
          ok = ok && near(rec.contacts.s(rows), [d.contacts.s]') && near(rec.contacts.point(rows, :), [d.contacts.point]') && ...
               near(rec.contacts.force(rows, :), [d.contacts.force]');
        end
      end
    end
    check(ok, [name ': every ' cases{k, 3} ' value agrees with the NDJSON']);
    if strcmp(cases{k, 3}, 'contacts')
      check(any(counts == 0) && max(counts) > 1, [name ': contacts come and go (' mat2str(counts') ')']);
    end
    rodd_delete(c, m.id);
  end

  % errors name the JSON pointer of what is wrong
  bad = strrep(spec, '"poisson_ratio": 0.45', '"poisson_ratio": 0.7');
  try
    rodd_create(c, 'spec', bad);
    error('test:missed', 'a bad spec was accepted');
  catch e
    check(strcmp(e.identifier, 'rodd:invalid-spec') && ~isempty(strfind(e.message, '/spec/rod/poisson_ratio')), ...
          'a bad spec raises rodd:invalid-spec naming /spec/rod/poisson_ratio');
  end
  rodd_delete(c, s.id);
  try
    rodd_session(c, s.id);
    error('test:missed', 'a deleted session is still there');
  catch e
    check(strcmp(e.identifier, 'rodd:not-found'), 'a deleted session is not found');
  end

  transports(url, idle_url, spec);
  several_rods(c, fullfile(here, '..', '..', '..', 'tests', 'cli', 'rods.json'));

  % the worked example: a PI controller holds the tip at 10 mm
  h = pi_tip_control(url, 0.01, 1.5);
  check(abs(h(end, 2) - 0.01) < 0.02 * 0.01, 'the PI example holds the tip within 2 % by 1.5 s');
  printf('matlab client: all passed\n');
end

function transports(url, idle_url, spec)
  % Octave with instrument-control keeps one connection; curl, the fallback, gives the same
  % answers and errors; a connection the daemon closed while idle is opened again
  c = rodd_client(url);
  check(strcmp(c.transport, 'socket'), 'Octave with tcpclient talks over a socket');
  s = rodd_create(c, 'spec', spec, 'points', 5);
  conn = c.connection('socket');
  conn.UserData = 'first';
  for k = 1:5
    f = rodd_step(c, s.id, 0.01, struct('cable', 0.1 * k));
  end
  check(strcmp(c.connection('socket').UserData, 'first'), 'five steps over the one kept-alive connection');
  curl = rodd_client(url, '', 'transport', 'curl');
  g = rodd_frame(curl, s.id);
  check(strcmp(curl.transport, 'curl') && isequal(g.position, f.position), 'curl fetches the same frame');
  rodd_delete(c, s.id);
  for t = {c, curl}
    try
      rodd_session(t{1}, s.id);
      error('test:missed', 'a deleted session is still there');
    catch e
      check(strcmp(e.identifier, 'rodd:not-found'), [t{1}.transport ': a 404 raises rodd:not-found']);
    end
  end
  c = rodd_client(idle_url);
  n = numel(rodd_request(c, 'GET', '/v1/examples').examples);
  pause(1.6);
  check(numel(rodd_request(c, 'GET', '/v1/examples').examples) == n && n > 0, 'a request after the daemon closed the idle connection');
  try
    rodd_request(rodd_client('http://127.0.0.1:1'), 'GET', '/v1/examples');
    error('test:missed', 'a closed port answered');
  catch e
    check(strcmp(e.identifier, 'rodd:connection'), 'no daemon: rodd:connection');
  end
end

% a model of two rods (tests/cli/rods.json): f.rods, one struct per rod with its own arrays
function several_rods(c, path)
  s = rodd_create(c, 'spec', fileread(path), 'points', 4, 'recording', struct('rate', 200));
  s = rodd_advance(c, s.id, 0.01);
  f = rodd_frame(c, s.id);
  check(numel(f.rods) == 2 && strcmp(f.rods(1).name, 'upper') && strcmp(f.rods(2).name, 'lower'), ...
        'a frame of several rods has f.rods by name');
  check(isequal(size(f.rods(2).position), [4 3]) && isequal(size(f.rods(2).rotation), [4 3 3]), ...
        'each rod''s arrays are points x 3 (x 3)');
  check(max(abs(f.rods(1).position(end, :) - f.rods(2).position(1, :))) < 1e-6, ...
        'the fixed joint: the lower rod starts at the upper one''s tip');
  check(~isfield(f, 'position'), 'no per-point arrays of the model''s own');
  rec = rodd_recording(c, s.id);
  check(numel(rec.t) == 3 && isequal(size(rec.rods.lower.position), [3 4 3]), ...
        'the recording has rods.NAME, frames x points x 3');
  last = squeeze(rec.rods.lower.position(end, :, :));
  check(max(abs(last(:) - f.rods(2).position(:))) < 1e-9, 'the last recorded frame of a rod is the published one');
  rodd_delete(c, s.id);
end

function ok = near(a, b)
  % to the NDJSON's 10 significant digits
  ok = isequal(numel(a), numel(b)) && max(abs(double(a(:)) - b(:))) <= 1e-9 * max(abs(b(:))) + 1e-15;
end

function check(ok, what)
  if ~ok
    error('test:failed', 'FAIL %s', what);
  end
  printf('ok   %s\n', what);
end
