function history = pi_tip_control(url, target, seconds)
%PI_TIP_CONTROL  Holds the cable arm's tip at x = target (m) with a PI controller that owns
%   the clock: each 10 ms it sets the cable's tension, advances the simulation by 10 ms and
%   reads the tip, in one request (rodd_step). history is [t, tip x, tension] per period.
%     h = pi_tip_control('http://127.0.0.1:8080', 0.01, 2); plot(h(:, 1), h(:, 2))
  if nargin < 2, target = 0.01; end
  if nargin < 3, seconds = 2; end
  here = fileparts(mfilename('fullpath'));
  addpath(fullfile(here, '..'));
  c = rodd_client(url);
  s = rodd_create(c, 'spec', fileread(fullfile(here, 'cable_arm.json')), 'points', 5, 'name', 'PI tip control');
  kp = 40; ki = 70;  % N/m, N/(m s): the arm is about 46 mm/N with a 0.55 s lag
  dt = 0.01;
  integral = 0;
  n = round(seconds / dt);
  history = zeros(n, 3);
  cleanup = onCleanup(@() rodd_delete(c, s.id));
  f = rodd_frame(c, s.id);
  for k = 1:n
    x = f.position(end, 1);
    e = target - x;
    integral = integral + e * dt;
    u = max(0, kp * e + ki * integral);  % a cable cannot push
    if u == 0 && e < 0
      integral = integral - e * dt;      % no wind-up against the limit
    end
    f = rodd_step(c, s.id, dt, struct('cable', u));  % set, advance and read in one request
    history(k, :) = [f.t, x, u];
  end
end
